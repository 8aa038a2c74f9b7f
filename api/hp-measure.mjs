import { Parser } from 'htmlparser2'
for (const [name, s] of [['div', '<div>'.repeat(20000)], ['div40', '<div>'.repeat(40000)], ['div80', '<div>'.repeat(80000)], ['close', '<div>'.repeat(20000) + '</span>'.repeat(20000)], ['a', "<a '".repeat(250000)], ['lt', '<'.repeat(1e6)]]) {
  const t = performance.now(); let n = 0
  const p = new Parser({ ontext() { n++ }, onopentag() { n++ } }, { decodeEntities: false })
  p.end(s)
  console.log(name, s.length, (performance.now() - t).toFixed(0), n)
}
