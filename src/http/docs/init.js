// Starts Swagger UI on /v1/docs (served as a file: the page runs nothing inline).
window.ui = SwaggerUIBundle({
  dom_id: '#swagger-ui',
  url: '/v1/openapi.json',
  // Deep links put a link inside each operation's toggle button (nested interactive controls).
  deepLinking: false,
  defaultModelsExpandDepth: 0,
})

// What Swagger UI leaves unnamed, named for assistive technology: the server list, and the parts of
// the page outside its <main> (the title block is the page's banner, the server bar a region).
function label(selector, attrs) {
  for (const el of document.querySelectorAll(selector)) for (const [k, v] of Object.entries(attrs)) if (el.getAttribute(k) !== v) el.setAttribute(k, v)
}
new MutationObserver(() => {
  label('.servers select', { 'aria-label': 'Server' })
  label('.information-container', { role: 'banner' })
  label('.scheme-container', { role: 'region', 'aria-label': 'Server and authorization' })
  // The title is the only h1 and operation groups are h3: tell the outline they are one level down.
  label('#swagger-ui h3', { 'aria-level': '2' })
  label('#swagger-ui h4', { 'aria-level': '3' })
  label('#swagger-ui h5', { 'aria-level': '4' })
}).observe(document.getElementById('swagger-ui'), { childList: true, subtree: true })
