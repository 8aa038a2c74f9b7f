import { createRequire } from 'node:module'
import process from 'node:process'
import type Roaring from 'roaring'

// Compressed bitmaps of 32-bit integers (roaring, the CRoaring binding), loaded when first used.

export type Bitmap = Roaring.RoaringBitmap32

const require = createRequire(import.meta.url)
let loaded: typeof Roaring | undefined

/**
 * roaring finds its binary through node-pre-gyp, which reads the process's command line as its own options: a
 * `--dir` of the CLI's (`leadline mail-catcher --dir …`) would move where it looks. So it is loaded with none.
 */
function roaring(): typeof Roaring {
  if (loaded !== undefined) return loaded
  const argv = process.argv
  process.argv = argv.slice(0, 2)
  try {
    loaded = require('roaring') as typeof Roaring
  } finally {
    process.argv = argv
  }
  return loaded
}

/** A bitmap of `values` (none when left out). */
export function bitmap(values?: Iterable<number>): Bitmap {
  const RoaringBitmap32 = roaring().RoaringBitmap32
  return values === undefined ? new RoaringBitmap32() : new RoaringBitmap32(values)
}

/** The values of `a` that are not in `b`, as a new bitmap. */
export function difference(a: Bitmap, b: Bitmap): Bitmap {
  return roaring().RoaringBitmap32.andNot(a, b)
}
