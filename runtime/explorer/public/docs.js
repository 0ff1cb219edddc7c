// Swagger UI over this server's /docs/openapi.json (/openapi.json with descriptions that render
// as text, runtime/explorer/docs-text.ts). The bearer token, when the explorer page has one
// for this tab (sessionStorage), goes on every request Swagger UI makes: the document and "Try
// it out" alike; a 401 shows where to enter it.
window.addEventListener("DOMContentLoaded", () => {
  // Who the server takes this tab for, as the explorer shows it (app.json names the caller).
  const token = sessionStorage.getItem("wo.token");
  fetch("/explorer/app.json", { headers: token ? { authorization: `Bearer ${token}` } : {}, credentials: "omit" })
    .then((r) => (r.ok ? r.json() : undefined))
    .then((model) => {
      const c = model?.caller;
      if (c) document.getElementById("whoami").textContent = `as ${c.name}${c.role ? ` · ${c.role}` : ""}`;
    })
    .catch(() => undefined);
  window.ui = window.SwaggerUIBundle({
    url: "/docs/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    tryItOutEnabled: false,
    requestInterceptor: (request) => {
      const token = sessionStorage.getItem("wo.token");
      if (token) request.headers.Authorization = `Bearer ${token}`;
      return request;
    },
    responseInterceptor: (response) => {
      if (response.status === 401) document.getElementById("token-note").hidden = false;
      return response;
    },
  });
});
