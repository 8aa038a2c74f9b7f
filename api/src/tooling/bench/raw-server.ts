import { createServer, type Server, type ServerResponse } from 'node:http'
import SqliteDatabase from 'better-sqlite3'

// The "raw limit" of the benchmark: a bare node:http server that checks the Authorization header the API would get
// and answers a lead read with one prepared-statement point read of the JSON the API answered for that lead.
// Nothing an API does per request is cheaper than this, so it is the yardstick for the API's own point reads.

const LEAD_PATH = /^\/api\/v1\/lead\/([A-Za-z0-9_]+)\/?$/

/** Stores the API's answers for some leads, by id, in a fresh scratch SQLite file. */
export function storeLeadBodies(file: string, bodies: ReadonlyMap<string, string>): void {
  const db = new SqliteDatabase(file)
  try {
    db.exec('create table lead_json (id text primary key, body text not null) without rowid')
    const insert = db.prepare('insert into lead_json (id, body) values (?, ?)')
    db.transaction(() => {
      for (const [id, body] of bodies) insert.run(id, body)
    })()
  } finally {
    db.close()
  }
}

/** A server answering `GET /api/v1/lead/{id}/` from `file` to requests that carry `authorization`. */
export function createRawServer(file: string, authorization: string): Server {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true })
  const read = db.prepare<[string], { body: string }>('select body from lead_json where id = ?')
  const answer = (res: ServerResponse, status: number, body: string, extra = {}) => {
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      ...extra,
    })
    res.end(body)
  }
  const server = createServer((req, res) => {
    if (req.headers.authorization !== authorization) {
      answer(res, 401, '{"error":"Unauthorized"}', { 'www-authenticate': 'Basic realm="api"' })
      return
    }
    const id = LEAD_PATH.exec(req.url ?? '')?.[1]
    const row = id === undefined ? undefined : read.get(id)
    if (row === undefined) answer(res, 404, '{"error":"Not found"}')
    else answer(res, 200, row.body)
  })
  server.on('close', () => db.close())
  return server
}
