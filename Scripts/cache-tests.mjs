// Runs the HTTP caching tests (http-tests/cache-tests), the browser set or the shared-cache set, with Courier as the cache: the
// suite's own origin server, and the suite's client engine with a global `fetch` answered by an
// APIClient (`courier-test-helper cache-tests-bridge`, one JSON line a request and an answer).
// Only the tests' own requests go through Courier; the engine's set-up calls to its server
// (`/config/…`, `/state/…`) keep Node's fetch.
//
// Usage: node Scripts/cache-tests.mjs SUITE HELPER TRANSPORT FRESHNESS RESULTS
//   SUITE      the cache-tests folder (test-engine/, tests/)
//   HELPER     the courier-test-helper executable
//   TRANSPORT  urlsession or ahc
//   FRESHNESS  http, server-max-age or never (the browser set), or shared-http (the shared-cache
//              set: the tests a proxy or CDN runs, with CacheFreshness.sharedHTTP), or
//              shared-postgres (the same set, with the cache in PostgresCacheStore on the server at
//              127.0.0.1:$COURIER_CACHE_TESTS_POSTGRES_PORT, user postgres)
//   RESULTS    the JSON file the per-test results are written to
// Prints one line: the count of tests passed out of those run.
// Scripts/cache-tests.sh runs it for both transports beside the browsers' counts.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import path from 'node:path'

const [suite, helper, transport, freshness, resultsFile] = process.argv.slice(2)
if (!resultsFile) {
  console.error('usage: node Scripts/cache-tests.mjs SUITE HELPER TRANSPORT FRESHNESS RESULTS')
  process.exit(2)
}

// The suite's origin server, on a port the system chooses (it prints the port when it listens).
const origin = await new Promise((resolve, reject) => {
  const server = spawn(process.execPath, [path.join(suite, 'test-engine/server/server.mjs')], {
    env: { ...process.env, npm_config_protocol: 'http', npm_config_port: '0', npm_config_pidfile: '/dev/null' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  process.on('exit', () => server.kill())
  server.on('error', reject)
  server.on('exit', code => reject(new Error(`the cache-tests server exited (${code})`)))
  createInterface({ input: server.stdout }).on('line', line => {
    const port = /:(\d+)\/$/.exec(line)
    if (port) resolve(`http://127.0.0.1:${port[1]}`)
  })
})

// The bridge: requests out as JSON lines, answers back by id.
const bridge = spawn(helper, ['cache-tests-bridge', '--transport', transport, '--freshness', freshness, '--origin', origin], {
  stdio: ['pipe', 'pipe', 'inherit']
})
process.on('exit', () => bridge.kill())
bridge.on('exit', code => {
  if (pending.size > 0) console.error(`the bridge exited (${code}) with ${pending.size} requests unanswered`)
  for (const { reject } of pending.values()) reject(new TypeError('the Courier bridge exited'))
  pending.clear()
})
const pending = new Map()
let nextId = 0
createInterface({ input: bridge.stdout }).on('line', line => {
  const answer = JSON.parse(line)
  const waiting = pending.get(answer.id)
  if (!waiting) return
  pending.delete(answer.id)
  if (answer.error !== undefined) {
    waiting.reject(new TypeError(`Courier: ${answer.error}`))
    return
  }
  const nullBody = [101, 103, 204, 205, 304].includes(answer.status)
  const body = nullBody ? null : Buffer.from(answer.body, 'base64')
  try {
    waiting.resolve(new Response(body, { status: answer.status, headers: answer.headers }))
  } catch (error) {
    waiting.reject(error)
  }
})

const nodeFetch = globalThis.fetch
globalThis.fetch = (url, init = {}) => {
  if (!String(url).startsWith(`${origin}/test/`)) return nodeFetch(url, init)
  const id = nextId++
  const request = {
    id,
    url: String(url),
    method: init.method ?? 'GET',
    headers: (init.headers ?? []).map(([name, value]) => [String(name), String(value)]),
    body: init.body ?? null,
    cache: init.cache ?? null,
    redirect: init.redirect ?? null
  }
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject })
    bridge.stdin.write(JSON.stringify(request) + '\n')
  })
}

const { runTests, getResults } = await import(pathToFileURL(path.join(suite, 'test-engine/client/runner.mjs')))
const tests = (await import(pathToFileURL(path.join(suite, 'tests/index.mjs')))).default
await runTests(tests, !freshness.startsWith('shared-'), origin)
const results = getResults()
writeFileSync(resultsFile, JSON.stringify(results, null, 2) + '\n')
const ids = Object.keys(results)
const passed = ids.filter(id => results[id] === true).length
console.log(`${passed} of ${ids.length}`)
process.exit(0)
