// Swagger UI over this server's /openapi.json. The bearer token, when the explorer page has one
// for this tab (sessionStorage), goes on every request Swagger UI makes: the document and "Try
// it out" alike.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    tryItOutEnabled: false,
    requestInterceptor: (request) => {
      const token = sessionStorage.getItem("wo.token");
      if (token) request.headers.Authorization = `Bearer ${token}`;
      return request;
    },
  });
});
