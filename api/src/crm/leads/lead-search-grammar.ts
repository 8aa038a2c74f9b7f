/**
 * The lead search language (`GET /api/v1/lead/?query=…`) as a peggy grammar. It is a TS constant rather than a
 * `.peggy` file so the built package needs no asset copying; lead-search-parse.ts generates the parser from it once.
 *
 * The grammar only shapes the text into a raw tree (`RawExpr` in lead-search-parse.ts): `has:` and `sort:` are
 * plain fields here, and parentheses stay visible as `group` nodes so the TS side can tell top-level `sort:` apart.
 * Whitespace is JavaScript's `\s`. Between terms it is optional (`(a)(b)`), but words are greedy, so `ab` is one word.
 * A keyword (and/or/not, any case) is an operator only where it has an operand; elsewhere it is a plain word.
 */
export const leadSearchGrammar = String.raw`
Query
  = _ where:OrExpr? _ { return where }

OrExpr
  = head:AndExpr tail:(_ Or _ @AndExpr)*
    { return tail.length === 0 ? head : { kind: 'or', items: [head, ...tail] } }

// "or" followed by something that can start a term is an operator, so it ends this AND run.
// The look-ahead checks one character only: checking a whole term would parse nested groups twice.
AndExpr
  = head:Unary tail:(_ And _ @Unary / _ !(Or _ TermStart) @Unary)*
    { return tail.length === 0 ? head : { kind: 'and', items: [head, ...tail] } }

Unary
  = "-" expr:Unary { return { kind: 'not', expr, offset: offset() } }
  / Not _ expr:Unary { return { kind: 'not', expr, offset: offset() } }
  / Primary

Primary
  = "(" _ expr:OrExpr _ ")" { return { kind: 'group', expr, offset: offset() } }
  / Field
  / value:QuotedString { return { kind: 'text', value, offset: offset() } }
  / value:$NameChar+ { return { kind: 'text', value, offset: offset() } }

// Spaces may surround the comparator (created > "last week"): a field name is a word or a quoted string, and
// neither can be followed by a comparator except as a field, so this reads nothing that parsed before differently.
Field
  = name:FieldName _ op:Comparator _ value:Value
    { return { kind: 'field', name, op, value: value.text, valueOffset: value.offset, offset: offset() } }

FieldName
  = QuotedString
  / $NameChar+

Comparator
  = ">=" / "<=" / ">" / "<" / ":"

Value "a value"
  = text:QuotedString { return { text, offset: offset() } }
  / text:$ValueChar+ { return { text, offset: offset() } }

QuotedString
  = '"' chars:QuotedChar* '"' { return chars.join('') }
  / '"' QuotedChar* { error('unterminated quote', location()) }

QuotedChar
  = "\\" @["\\]
  / [^"]

TermStart
  = &(NameChar / "(" / '"')

Or = "or"i !NameChar
And = "and"i !NameChar
Not = "not"i !NameChar

NameChar
  = [^ \t\n\r\v\f\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF()"<>:]

ValueChar
  = [^ \t\n\r\v\f\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF()"]

_
  = [ \t\n\r\v\f\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]*
`
