//! HTTP routes in the API spec, from both sides: the endpoints an OpenAPI `paths:`
//! block declares, and the handlers the spec's code binds to a route (a NestJS
//! `@Get(':id')` under `@Controller('events')`, Spring's `@GetMapping("/{id}")`
//! under `@RequestMapping("/loans")`, ASP.NET's `[HttpGet("{id}")]`, FastAPI's
//! `@router.get("/x")`, a Go `mux.HandleFunc("GET /links/{id}", h.Get)`, an Express
//! `router.get('/x', …)`). Paths compare with their parameters blanked, so
//! `/loans/{id}`, `/loans/:id` and `/loans/<int:id>` are one route.

use std::ops::Range;

use super::text::{is_fence, is_ident_char, lines};

/// One operation of `paths:` (or the path alone, when it lists no method).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// `GET`, `POST`, …; `None` for a path with no method under it.
    pub method: Option<&'static str>,
    pub path: String,
    pub operation_id: Option<String>,
    /// The method key in the spec (the path key for a path with no method).
    pub span: Range<usize>,
}

/// A route the spec's code binds to a handler.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handler {
    /// `None` when the binding takes every method (`mux.HandleFunc("/x", …)`).
    pub method: Option<&'static str>,
    /// The full route, its class prefix joined.
    pub path: String,
    /// The route as written where it is bound.
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Routes {
    pub endpoints: Vec<Endpoint>,
    pub handlers: Vec<Handler>,
    /// The path of the first `servers:` URL (`/api/v1`), which endpoints sit under.
    pub base: String,
}

const METHODS: [&str; 8] = [
    "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE",
];

fn method_of(word: &str) -> Option<&'static str> {
    METHODS
        .iter()
        .copied()
        .find(|m| m.eq_ignore_ascii_case(word))
}

/// A route with its parameters blanked and no trailing slash: `/loans/{id}`,
/// `/loans/:id/` and `/loans/<int:id>` all give `/loans/{}`.
pub fn normalize(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 1);
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        let param = segment.starts_with([':', '{', '<', '['])
            || (segment.starts_with('*') && segment.len() > 1);
        out.push_str(if param { "{}" } else { segment });
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Joins a class prefix and a method route (`events` + `:id` gives `/events/:id`).
fn join(prefix: &str, route: &str) -> String {
    let prefix = prefix.trim_matches('/');
    let route = route.trim_matches('/');
    match (prefix.is_empty(), route.is_empty()) {
        (true, true) => "/".to_string(),
        (true, false) => format!("/{route}"),
        (false, true) => format!("/{prefix}"),
        (false, false) => format!("/{prefix}/{route}"),
    }
}

/// The first quoted string of `text` (`'…'`, `"…"` or `` `…` ``) and where its
/// inside starts.
fn first_string(text: &str) -> Option<(usize, &str)> {
    let open = text.find(['"', '\''])?;
    let quote = text[open..].chars().next()?;
    let inner = &text[open + 1..];
    let close = inner.find(quote)?;
    Some((open + 1, &inner[..close]))
}

/// The argument list after a name, if the name is followed by `(`.
fn args_after(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('(')?;
    let mut depth = 1;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&rest[..i]);
                }
            }
            _ => {}
        }
    }
    Some(rest)
}

/// What a route annotation binds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Binding {
    /// A class's route prefix: `@Controller('x')`, `[Route("api/x")]`, and Spring's
    /// `@RequestMapping("/x")` when a class follows.
    Prefix { route: String },
    /// A method's route.
    Route {
        method: Option<&'static str>,
        route: String,
        /// `@RequestMapping` without a method: a prefix if a class follows.
        mapping: bool,
    },
}

/// A route annotation, decorator or attribute at `text` (which starts at the `@` or
/// `[`), with the route's offset in `text` (or the annotation's, when it has none).
fn annotation(text: &str) -> Option<(Binding, usize)> {
    let (name_text, attribute) = match text.strip_prefix('@') {
        Some(rest) => (rest, false),
        None => (text.strip_prefix('[')?, true),
    };
    let name_len = name_text
        .find(|c: char| !is_ident_char(c) && c != '.')
        .unwrap_or(name_text.len());
    let full = &name_text[..name_len];
    let name = full.rsplit('.').next().unwrap_or(full);
    let after = &name_text[name_len..];
    let args = args_after(after).unwrap_or("");
    let args_at = 1 + name_len + 1;
    let (route_at, route) = match first_string(args) {
        Some((at, r)) => (args_at + at, r.to_string()),
        None => (0, String::new()),
    };
    // a string that is not a route (`@Get('health')` is one; `@Catch(X)` has none)
    let binding = match name {
        "Controller" | "RestController" if !attribute => Binding::Prefix { route },
        "Route" if attribute => Binding::Prefix { route },
        "RequestMapping" => {
            let method = args.find("RequestMethod.").and_then(|i| {
                let m = &args[i + "RequestMethod.".len()..];
                method_of(
                    &m[..m
                        .find(|c: char| !c.is_ascii_alphabetic())
                        .unwrap_or(m.len())],
                )
            });
            Binding::Route {
                method,
                route,
                mapping: method.is_none(),
            }
        }
        _ => {
            let method = if attribute {
                name.strip_prefix("Http").and_then(method_of)?
            } else if let Some(m) = name.strip_suffix("Mapping") {
                method_of(m)?
            } else if full.contains('.') {
                // FastAPI / Flask: `@router.get("/x")`, `@app.route("/x", methods=["POST"])`
                let word = name;
                if word == "route" {
                    let methods = args.find("methods").map(|i| &args[i..]);
                    let m = methods
                        .and_then(|m| first_string(m.split_once('[')?.1))
                        .and_then(|(_, w)| method_of(w));
                    if !route.starts_with('/') {
                        return None;
                    }
                    return Some((
                        Binding::Route {
                            method: m,
                            route,
                            mapping: false,
                        },
                        route_at,
                    ));
                }
                if !word.chars().all(|c| c.is_ascii_lowercase()) || !route.starts_with('/') {
                    return None;
                }
                method_of(word)?
            } else {
                // NestJS and Micronaut: `@Get(':id')`, `@Post()`
                if !name.starts_with(|c: char| c.is_ascii_uppercase()) || name.len() < 3 {
                    return None;
                }
                method_of(name)?
            };
            Binding::Route {
                method: Some(method),
                route,
                mapping: false,
            }
        }
    };
    Some((binding, route_at))
}

/// A router call binding a route: `mux.HandleFunc("GET /x", h.Get)`, `r.Get("/x", …)`,
/// `router.post('/x', …)`, `app.MapGet("/x", …)`, `e.GET("/x", …)`. Only a route
/// that starts with `/` (after Go's method) counts, so `config.get('key')` is none.
fn router_call(text: &str) -> Option<(Option<&'static str>, String, usize)> {
    let mut search = 0;
    while let Some(dot) = text[search..].find('.') {
        let at = search + dot + 1;
        search = at;
        let word_len = text[at..]
            .find(|c: char| !is_ident_char(c))
            .unwrap_or(text.len() - at);
        let word = &text[at..at + word_len];
        let rest = &text[at + word_len..];
        if !rest.starts_with('(') {
            continue;
        }
        let any = matches!(
            word,
            "HandleFunc" | "Handle" | "all" | "use" | "Any" | "Map"
        );
        // a chained call (`r.With(auth).Get("/x", h)`) goes on to the next word
        let method = if any {
            None
        } else {
            match method_of(word.strip_prefix("Map").unwrap_or(word)) {
                Some(m) => Some(m),
                None => continue,
            }
        };
        let args = &rest[1..];
        let Some((open, first)) = first_string(args) else {
            continue;
        };
        // the route must be the first argument
        if !args[..open - 1].trim().is_empty() {
            continue;
        }
        let (method, route, skip) = match first.split_once(' ') {
            Some((m, r)) if any && method_of(m).is_some() => {
                (method_of(m), r.trim_start(), m.len() + 1)
            }
            _ => (method, first, 0),
        };
        if !route.starts_with('/') {
            continue;
        }
        let route_at = at + word_len + 1 + open + skip;
        return Some((method, route.to_string(), route_at));
    }
    None
}

/// Does a line declare a class (so a pending prefix annotation is the class's)?
fn declares_class(text: &str) -> bool {
    text.split_whitespace()
        .take(6)
        .any(|w| matches!(w, "class" | "struct" | "object"))
}

/// Reads `paths:` endpoints and route-bound handlers of an API spec.
pub fn read(spec: &str) -> Routes {
    let mut routes = Routes::default();
    // `paths:` state: its indent, the indent of its path keys, the current path.
    let mut paths: Option<(usize, Option<usize>)> = None;
    let mut current: Option<(String, Range<usize>, usize)> = None;
    let mut methods_seen = false;
    let mut servers: Option<usize> = None;
    let mut prefix = String::new();
    let mut pending: Vec<(Binding, Range<usize>)> = Vec::new();
    let mut in_fence = false;
    for line in lines(spec) {
        let trimmed = line.text.trim();
        if is_fence(trimmed) {
            in_fence = !in_fence;
            if !in_fence {
                paths = close_path(&mut routes, &mut current, methods_seen, None);
                methods_seen = false;
                pending.clear();
            }
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        let indent = line.indent();
        // a key only matters inside `paths:` or `servers:`, or to open them
        let keyed = paths.is_some() || servers.is_some() || trimmed.starts_with(['p', 's', '"']);
        let key = if keyed {
            trimmed
                .split_once(':')
                .map(|(k, _)| k.trim().trim_matches(['"', '\'']))
                .unwrap_or("")
        } else {
            ""
        };
        if let Some(s) = servers {
            if indent <= s && !trimmed.starts_with('-') {
                servers = None;
            } else if routes.base.is_empty()
                && let Some(url) = trimmed
                    .split_once("url:")
                    .map(|(_, u)| u.trim().trim_matches(['"', '\'', ' ', '}', ',']))
            {
                let path = match url.find("://") {
                    Some(i) => url[i + 3..].find('/').map_or("", |p| &url[i + 3 + p..]),
                    None => url,
                };
                routes.base = path.trim_end_matches('/').to_string();
            }
        }
        if let Some((p_indent, key_indent)) = paths {
            if indent <= p_indent {
                paths = close_path(&mut routes, &mut current, methods_seen, None);
                methods_seen = false;
            } else if key.starts_with('/') && key_indent.is_none_or(|k| indent <= k) {
                paths = close_path(
                    &mut routes,
                    &mut current,
                    methods_seen,
                    Some((p_indent, Some(indent))),
                );
                methods_seen = false;
                let at = line.text.find(key).unwrap_or(0);
                let span = line.start + at..line.start + at + key.len();
                current = Some((key.to_string(), span, indent));
                continue;
            } else if let Some((path, _, path_indent)) = &current {
                if indent > *path_indent
                    && let Some(method) = method_of(key)
                    && METHODS.contains(&key.to_ascii_uppercase().as_str())
                    && key.chars().all(|c| c.is_ascii_lowercase())
                {
                    methods_seen = true;
                    let at = line.text.find(key).unwrap_or(0);
                    routes.endpoints.push(Endpoint {
                        method: Some(method),
                        path: path.clone(),
                        operation_id: operation_id(trimmed),
                        span: line.start + at..line.start + at + key.len(),
                    });
                } else if key == "operationId"
                    && let Some(last) = routes.endpoints.last_mut()
                    && last.path == *path
                    && last.operation_id.is_none()
                {
                    last.operation_id = operation_id(trimmed);
                }
                continue;
            } else {
                continue;
            }
        }
        if key == "paths" && (trimmed.ends_with(':') || trimmed.ends_with('{')) {
            paths = Some((indent, None));
            continue;
        }
        if key == "servers" {
            servers = Some(indent);
            continue;
        }
        handlers_of_line(
            &mut routes,
            &mut prefix,
            &mut pending,
            line.text,
            line.start,
        );
    }
    close_path(&mut routes, &mut current, methods_seen, paths);
    routes
}

/// Ends the path being read: a path with no method is an endpoint of its own.
fn close_path(
    routes: &mut Routes,
    current: &mut Option<(String, Range<usize>, usize)>,
    methods_seen: bool,
    next: Option<(usize, Option<usize>)>,
) -> Option<(usize, Option<usize>)> {
    if let Some((path, span, _)) = current.take()
        && !methods_seen
    {
        routes.endpoints.push(Endpoint {
            method: None,
            path,
            operation_id: None,
            span,
        });
    }
    next
}

/// `operationId: getLoan` on a method's line (`get: { operationId: getLoan }`) or its own.
fn operation_id(trimmed: &str) -> Option<String> {
    let at = trimmed.find("operationId")?;
    let rest = trimmed[at + "operationId".len()..].trim_start_matches(['"', '\'', ':', ' ']);
    let id: String = rest.chars().take_while(|c| is_ident_char(*c)).collect();
    (!id.is_empty()).then_some(id)
}

/// The route annotations and router calls of one line of code or prose.
fn handlers_of_line(
    routes: &mut Routes,
    prefix: &mut String,
    pending: &mut Vec<(Binding, Range<usize>)>,
    text: &str,
    start: usize,
) {
    let bytes = text.as_bytes();
    let has_mark = memchr::memchr2(b'@', b'[', bytes).is_some();
    let has_call =
        memchr::memchr(b'(', bytes).is_some() && memchr::memchr2(b'"', b'\'', bytes).is_some();
    if !has_mark && !has_call {
        // a line that is neither: a class takes the pending prefix, a method the
        // routes; with nothing pending and no prefix there is nothing to settle
        if !pending.is_empty() || !prefix.is_empty() {
            settle(routes, prefix, pending, declares_class(text));
        }
        return;
    }
    let mut rest_at = 0;
    let mut annotated = false;
    if has_mark {
        let mut i = 0;
        while i < text.len() {
            let Some(off) = text[i..].find(['@', '[']) else {
                break;
            };
            let at = i + off;
            // an annotation starts a word
            let starts_word =
                at == 0 || !is_ident_char(text[..at].chars().next_back().unwrap_or(' '));
            if starts_word && let Some((binding, route_at)) = annotation(&text[at..]) {
                let route_len = match &binding {
                    Binding::Prefix { route } | Binding::Route { route, .. } => route.len(),
                };
                let span = if route_len > 0 {
                    start + at + route_at..start + at + route_at + route_len
                } else {
                    let name_len = text[at + 1..]
                        .find(|c: char| !is_ident_char(c) && c != '.')
                        .unwrap_or(text.len() - at - 1);
                    start + at..start + at + 1 + name_len
                };
                pending.push((binding, span));
                annotated = true;
            }
            i = at + 1;
        }
        if annotated {
            // what follows the annotations on this line: a method or a class
            let last = text.rfind([')', ']']).map_or(0, |i| i + 1);
            rest_at = last;
        }
    }
    // `@router.get("/x")` is a decorator, not a call as well
    if has_call
        && !annotated
        && let Some((method, route, at)) = router_call(text)
    {
        routes.handlers.push(Handler {
            method,
            path: route.clone(),
            span: start + at..start + at + route.len(),
        });
        return;
    }
    let rest = text[rest_at.min(text.len())..].trim();
    if !annotated || !rest.is_empty() && !rest.starts_with("//") {
        settle(routes, prefix, pending, declares_class(rest));
    }
}

/// Applies the pending annotations to what follows them: a class takes the prefix,
/// a method its routes.
fn settle(
    routes: &mut Routes,
    prefix: &mut String,
    pending: &mut Vec<(Binding, Range<usize>)>,
    class: bool,
) {
    if class {
        let mut class_prefix = String::new();
        for (binding, _) in pending.drain(..) {
            match binding {
                Binding::Prefix { route }
                | Binding::Route {
                    route,
                    mapping: true,
                    ..
                } => class_prefix = route,
                Binding::Route { .. } => {}
            }
        }
        *prefix = class_prefix;
        return;
    }
    for (binding, span) in pending.drain(..) {
        if let Binding::Route { method, route, .. } = binding {
            routes.handlers.push(Handler {
                method,
                path: join(prefix, &route),
                span,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handlers(spec: &str) -> Vec<(Option<&'static str>, String)> {
        read(spec)
            .handlers
            .into_iter()
            .map(|h| (h.method, normalize(&h.path)))
            .collect()
    }

    #[test]
    fn openapi_paths_are_endpoints_with_their_methods() {
        let spec = "```yaml\nopenapi: 3.0.3\nservers:\n  - url: https://x.example/api/v1\npaths:\n  /loans:\n    post:\n      operationId: lend\n    get: { operationId: list }\n  \"/loans/{id}\":\n    get:\n      summary: one\n  /health: {}\ncomponents:\n  schemas:\n    Loan: {}\n```\n";
        let r = read(spec);
        let got: Vec<(Option<&str>, &str, Option<&str>)> = r
            .endpoints
            .iter()
            .map(|e| (e.method, e.path.as_str(), e.operation_id.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (Some("POST"), "/loans", Some("lend")),
                (Some("GET"), "/loans", Some("list")),
                (Some("GET"), "/loans/{id}", None),
                (None, "/health", None),
            ]
        );
        assert_eq!(r.base, "/api/v1");
        assert_eq!(&spec[r.endpoints[2].span.clone()], "get");
        assert_eq!(&spec[r.endpoints[3].span.clone()], "/health");
    }

    #[test]
    fn handlers_in_each_framework() {
        let nest = "```ts\n@Controller('events')\nexport class EventsController {\n  @Post() create(@Body() dto: Dto): Promise<Event>;\n  @Get(':id')\n  findOne(@Param('id') id: string): Promise<Event>;\n}\n@Catch(DomainException)\nexport class Filter {}\n```\n";
        assert_eq!(
            handlers(nest),
            [
                (Some("POST"), "/events".to_string()),
                (Some("GET"), "/events/{}".to_string())
            ]
        );
        let spring = "```java\n@RestController\n@RequestMapping(\"/loans\")\npublic class LoanController {\n    @PostMapping\n    public Loan lend(@RequestBody LendRequest r);\n    @GetMapping(\"/{id}\") public Loan get(@PathVariable Long id);\n    @RequestMapping(value = \"/x\", method = RequestMethod.DELETE)\n    public void drop();\n}\n```\n";
        assert_eq!(
            handlers(spring),
            [
                (Some("POST"), "/loans".to_string()),
                (Some("GET"), "/loans/{}".to_string()),
                (Some("DELETE"), "/loans/x".to_string())
            ]
        );
        let go = "```yaml\npaths:\n  /links:\n    post: {}\n```\n\n```go\nfunc (h *Handler) Routes(mux *http.ServeMux) {\n\tmux.HandleFunc(\"GET /links/{id}\", h.Get)\n\tmux.HandleFunc(\"/links\", h.Create)\n\tr.With(auth).Post(\"/x/{id}\", h.Post)\n\tcfg.Get(\"key\")\n}\n```\n";
        assert_eq!(
            handlers(go),
            [
                (Some("GET"), "/links/{}".to_string()),
                (None, "/links".to_string()),
                (Some("POST"), "/x/{}".to_string())
            ]
        );
        let py = "```python\n@router.get(\"/items/{item_id}\")\nasync def read_item(item_id: int) -> Item: ...\n@app.route(\"/x\", methods=[\"POST\"])\ndef x(): ...\n```\n";
        assert_eq!(
            handlers(py),
            [
                (Some("GET"), "/items/{}".to_string()),
                (Some("POST"), "/x".to_string())
            ]
        );
        let cs = "```csharp\n[ApiController]\n[Route(\"api/invoices\")]\npublic class InvoicesController : ControllerBase\n{\n    [HttpGet(\"{id:guid}\")]\n    public Task<Invoice> Get(Guid id);\n}\n```\n";
        assert_eq!(
            handlers(cs),
            [(Some("GET"), "/api/invoices/{}".to_string())]
        );
    }

    #[test]
    fn parameters_compare_blank() {
        assert_eq!(normalize("/loans/{id}/"), normalize("/loans/:id"));
        assert_eq!(normalize("loans/<int:id>"), "/loans/{}");
        assert_eq!(normalize(""), "/");
    }
}
