//! D034: the OpenAPI `paths:` and the routes the spec's handlers bind disagree. An
//! endpoint nobody handles is a feature the coding agent will not build; a handler
//! on a route the contract lacks is an endpoint clients were never told of. Where the
//! spec names no handler at all (no route annotation, router call or `operationId`
//! matching a function), there is nothing to compare and nothing is reported.

use std::collections::HashSet;

use crate::design::Section;
use crate::design::model::DesignModel;
use crate::design::model::routes::{Endpoint, Handler, normalize};

use super::diagnostic::{Code, Diagnostic};

pub fn check(model: &DesignModel, out: &mut Vec<Diagnostic>) {
    let routes = &model.routes;
    if routes.endpoints.is_empty() {
        return;
    }
    let functions: HashSet<String> = model
        .api
        .signatures()
        .map(|s| s.name.to_ascii_lowercase())
        .collect();
    let named = |e: &Endpoint| {
        e.operation_id
            .as_deref()
            .is_some_and(|id| functions.contains(&id.to_ascii_lowercase()))
    };
    if routes.handlers.is_empty() && !routes.endpoints.iter().any(named) {
        return;
    }
    let endpoints: Vec<(&Endpoint, String, String)> = routes
        .endpoints
        .iter()
        .map(|e| {
            let path = normalize(&e.path);
            let based = normalize(&format!("{}{}", routes.base, e.path));
            (e, path, based)
        })
        .collect();
    let handlers: Vec<(&Handler, String)> = routes
        .handlers
        .iter()
        .map(|h| (h, normalize(&h.path)))
        .collect();
    let same = |e: &(&Endpoint, String, String), h: &(&Handler, String)| {
        let methods = match (e.0.method, h.0.method) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        methods && (h.1 == e.1 || h.1 == e.2)
    };
    for e in &endpoints {
        if named(e.0) || handlers.iter().any(|h| same(e, h)) {
            continue;
        }
        out.push(
            Diagnostic::new(
                Code::RouteMismatch,
                Section::ApiSpec,
                e.0.span.clone(),
                format!(
                    "endpoint `{}` has no handler in the API spec",
                    shown(e.0.method, &e.0.path)
                ),
            )
            .note("help: bind it on a controller method or router call, or drop it from `paths:`"),
        );
    }
    for h in &handlers {
        if endpoints.iter().any(|e| same(e, h)) {
            continue;
        }
        out.push(
            Diagnostic::new(
                Code::RouteMismatch,
                Section::ApiSpec,
                h.0.span.clone(),
                format!(
                    "handler route `{}` is not in the OpenAPI `paths:`",
                    shown(h.0.method, &h.0.path)
                ),
            )
            .note("help: add the path and method to `paths:`, or correct the route"),
        );
    }
}

fn shown(method: Option<&str>, path: &str) -> String {
    match method {
        Some(m) => format!("{m} {path}"),
        None => path.to_string(),
    }
}
