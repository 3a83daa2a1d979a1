// The transport's ceiling: a cpp-httplib server configured like livechatd
// (TCP_NODELAY, long keep-alive, same thread pool) answering a fixed JSON
// body of a typical list-page size. livechatd's numbers are reported as a
// ratio to this one, measured in the same run.
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  int port = argc > 1 ? std::atoi(argv[1]) : 18090;
  std::size_t bytes = argc > 2 ? static_cast<std::size_t>(std::atol(argv[2])) : 2048;
  std::string body = "{\"data\":\"" + std::string(bytes > 12 ? bytes - 12 : 0, 'x') + "\"}";
  httplib::Server svr;
  svr.set_tcp_nodelay(true);
  svr.set_keep_alive_max_count(100000);
  // cpp-httplib serves one keep-alive connection per worker thread: the same
  // pool size as the livechatd run, so neither side starves connections.
  svr.new_task_queue = [] { return new httplib::ThreadPool(64); };
  svr.Get(R"(/.*)", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(body, "application/json");
  });
  svr.Post(R"(/.*)", [&](const httplib::Request&, httplib::Response& res) {
    res.status = 201;
    res.set_content(body, "application/json");
  });
  std::printf("ceiling listening on 127.0.0.1:%d (%zu-byte body)\n", port, body.size());
  std::fflush(stdout);
  return svr.listen("127.0.0.1", port) ? 0 : 1;
}
