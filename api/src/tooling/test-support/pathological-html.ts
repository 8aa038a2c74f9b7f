// Inputs that cost a backtracking pattern the square of their length (or that make a naive parser deep): each about
// `size` characters. What reads HTML anyone can send must handle every one in time linear in its length.

/** Each pathological input, by name, about `size` characters long. */
export function pathologicalHtml(size: number): Record<string, string> {
  const fill = (unit: string, tail = '') => unit.repeat(Math.ceil((size - tail.length) / unit.length)) + tail
  return {
    'unclosed attribute quotes': fill("<a '"),
    'unclosed tags': fill('<'),
    'unclosed tags before a quote': fill('<', '<blockquote>x</blockquote>'),
    'no "wrote:" after "On"': fill('On ', '<blockquote>x</blockquote>'),
    '"wrote:" far from "On"': fill('On x', 'wrote <blockquote>x</blockquote>'),
    'unclosed script': fill('<script>x', 'y'),
    'unclosed script elements': fill('<script '),
    'unclosed comments': fill('<!--'),
    'unclosed style after text': fill('a<style>'),
    'nested elements': fill('<div>'),
    'nested elements closed wrongly': fill('<div><p>', '</span>'),
    'spaces without an end': fill(' ', 'x'),
    'line breaks between tags': fill('<br>\n'),
    'links without an end': fill('<a href="https://a.example">'),
    'paragraphs after text': fill('x<p>'),
    'attributes without an end': fill('<a href=x '),
  }
}
