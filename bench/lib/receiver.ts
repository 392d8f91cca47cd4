// A webhook receiver for benchmarks: answers 204 to every POST and counts them at GET /count.
let count = 0
const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  async fetch(req) {
    if (req.method === 'GET') return new Response(String(count), { status: 200 })
    await req.arrayBuffer()
    count++
    return new Response(null, { status: 204 })
  },
})
void server
