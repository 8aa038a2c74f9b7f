import { describe, expect, test } from 'vitest'
import { headerKey, IMPORT_TARGETS, suggestMapping } from './import-schema.js'

describe('suggestMapping', () => {
  test('maps usual header names, case and separators ignored', () => {
    const mapping = suggestMapping(['Company Name', 'E-mail', 'first_name', 'LAST-NAME', 'Phone Number', 'Zip'], [])
    expect(mapping).toEqual({
      'Company Name': 'lead.name',
      'E-mail': 'contact.email',
      first_name: 'contact.first_name',
      'LAST-NAME': 'contact.last_name',
      'Phone Number': 'contact.phone',
      Zip: 'address.zipcode',
    })
  })

  test('a custom field is matched by its name, with or without "custom."', () => {
    const fields = [
      { id: 'cf_1', name: 'Source CRM' },
      { id: 'cf_2', name: 'Employees' },
    ]
    expect(suggestMapping(['source crm', 'custom.Employees', 'Unknown'], fields)).toEqual({
      'source crm': 'custom.cf_1',
      'custom.Employees': 'custom.cf_2',
    })
  })

  test('a target goes to the first column naming it', () => {
    expect(suggestMapping(['Email', 'Work Email'], [])).toEqual({ Email: 'contact.email' })
  })

  test('synonyms are written as header keys, and no synonym names two targets', () => {
    const seen = new Map<string, string>()
    for (const { target, synonyms } of IMPORT_TARGETS) {
      for (const synonym of synonyms) {
        expect(headerKey(synonym)).toBe(synonym)
        expect(seen.get(synonym) ?? target).toBe(target)
        seen.set(synonym, target)
      }
    }
  })
})
