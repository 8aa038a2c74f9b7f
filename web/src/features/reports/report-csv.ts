// CSV for spreadsheets (RFC 4180): no React, so the quoting and escaping rules are unit-tested.

export type CsvCell = string | number | null

/**
 * A text field that a spreadsheet would read as a formula (`=`, `+`, `-`, `@`, or a tab or carriage return first)
 * gets a leading apostrophe, so an opportunity named `=HYPERLINK(…)` stays text. Numbers are written as they are.
 */
function field(cell: CsvCell): string {
  if (cell === null) return ''
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : ''
  const text = /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** Rows as CSV text, lines ended by CRLF. */
export function toCsv(rows: readonly (readonly CsvCell[])[]): string {
  return rows.map((row) => row.map(field).join(',')).join('\r\n') + '\r\n'
}

/** Digits after the decimal point in a currency's major unit: 2 for USD, 0 for JPY. */
function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2
}

/** An amount in the currency's smallest unit (cents) as a number in its major unit: 150050 USD → 1500.5. */
export function majorUnits(value: number, currency: string): number {
  return value / 10 ** minorDigits(currency)
}

// The browser reads the file after the click has been handled, in a later task: revoked at once, the download may
// find nothing. A minute is long enough for any browser to have started it, and a CSV held that long costs little.
const REVOKE_AFTER_MS = 60_000

/** Saves text as a file through a temporary link (the browser's download). */
export function downloadText(fileName: string, text: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.click()
  setTimeout(() => {
    URL.revokeObjectURL(url)
  }, REVOKE_AFTER_MS)
}
