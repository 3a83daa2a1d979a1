// How livechatd registers routes with cpp-httplib. cpp-httplib dispatches
// only the methods a pattern is registered for and answers any other 404, so
// every path is registered here for every method it routes, and the answer to
// a method a path does not have is a 405 from the same registration.
#pragma once

#include <string>

#include <httplib.h>

namespace livechatd {

// `handler` for every method cpp-httplib routes (GET and HEAD, POST, PUT,
// PATCH, DELETE, OPTIONS): the adapter behind it decides, from its route
// table, what each method gets. cpp-httplib refuses other methods itself (400).
void RouteEveryMethod(httplib::Server& server, const std::string& pattern, const httplib::Server::Handler& handler);

// A resource the listener serves itself at exactly `path` (the probes,
// /metrics, /openapi.json, /sdk.js, /demo/): `handler` for GET (and so HEAD);
// any other method is 405 METHOD_NOT_ALLOWED with `Allow: GET`.
void ServeGet(httplib::Server& server, const std::string& path, httplib::Server::Handler handler);

}  // namespace livechatd
