import { describe, expect, it } from 'vitest'
import { RawJson, RawJsonList } from './raw-json.js'

describe('RawJsonList', () => {
  it('encodes the same JSON as its text, byte for byte, whatever the characters', () => {
    const items = ['{"name":"École"}', '{"name":"😀 and ✓"}', '{"a":[1,2]}', 'null']
    const list = new RawJsonList('{"has_more":false,"data":', items, '}')
    const body = list.body()
    expect(Buffer.isBuffer(body)).toBe(true)
    expect(body.toString('utf8')).toBe(list.text)
    expect(body.length).toBe(Buffer.byteLength(list.text))
    expect(list.parse()).toEqual({
      has_more: false,
      data: [{ name: 'École' }, { name: '😀 and ✓' }, { a: [1, 2] }, null],
    })
  })

  it('is an empty array when there are no items', () => {
    const list = new RawJsonList('{"data":', [], '}')
    expect(list.body().toString('utf8')).toBe('{"data":[]}')
    expect(list).toBeInstanceOf(RawJson)
  })

  it('leaves a plain RawJson as text', () => {
    expect(new RawJson('{"a":1}').body()).toBe('{"a":1}')
  })
})
