import { describe, expect, it } from 'vitest'
import { ApiError } from './api'
import { placeErrors } from './form-errors'

const refused = (fieldErrors: Record<string, string>) => new ApiError(400, { errors: [], 'field-errors': fieldErrors })

describe('placeErrors', () => {
  it('puts each field error beside its field and gathers the others into one message', () => {
    expect(placeErrors(['text', 'local_phone'], null)).toEqual({ beside: {}, general: undefined })
    expect(placeErrors(['text', 'local_phone'], refused({ text: 'Too long.' }))).toEqual({
      beside: { text: 'Too long.' },
      general: undefined,
    })
    expect(
      placeErrors(
        ['text', 'local_phone'],
        refused({ local_phone: 'Not an internal number.', send_in: 'At most 59.', status: 'Unknown status.' }),
      ),
    ).toEqual({
      beside: { local_phone: 'Not an internal number.' },
      general: 'send_in: At most 59. status: Unknown status.',
    })
  })

  it('puts the errors of a list’s items beside the list', () => {
    expect(
      placeErrors(['to', 'cc'], refused({ 'to.0': 'Not an address.', 'to.2': 'Not either.', 'cc.x': 'No.' })),
    ).toEqual({
      beside: { to: 'Not an address. Not either.', cc: 'No.' },
      general: undefined,
    })
    expect(placeErrors(['to'], refused({ tone: 'Unknown.' })).general).toBe('tone: Unknown.')
  })

  it('says what went wrong when no field is named', () => {
    expect(placeErrors(['text'], new ApiError(404, { error: 'Not found' }))).toEqual({
      beside: {},
      general: 'Not found',
    })
    expect(placeErrors(['text'], new ApiError(0, null)).general).toBe(
      'The server cannot be reached. Check your connection.',
    )
  })
})
