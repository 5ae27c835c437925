// SPDX-License-Identifier: Apache-2.0
#include "try_it/http_server.hpp"

#include "try_it/saved_page.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/serialize.hpp>

#include <deque>
#include <memory>
#include <optional>

namespace zkcoord::cli::try_it {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using request = http::request<http::string_body>;
using response = http::response<http::string_body>;

constexpr std::size_t max_body = 4096;

std::string error_json(const std::string& message) {
  return boost::json::serialize(boost::json::object{{"error", message}});
}

class connection : public std::enable_shared_from_this<connection> {
 public:
  connection(tcp::socket socket, lesson_board& board, std::uint16_t port)
      : stream_(std::move(socket)), board_(board), port_(port) {}

  void read() {
    parser_.emplace();
    parser_->body_limit(max_body);
    stream_.expires_after(std::chrono::seconds(60));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec == http::error::body_limit) return self->refuse_large();
                       if (!ec) self->handle(self->parser_->release());
                     });
  }

 private:
  bool host_is_ours(const request& req) const {
    const auto host = std::string(req[http::field::host]);
    const auto port = ":" + std::to_string(port_);
    return host == "127.0.0.1" + port || host == "localhost" + port;
  }

  void handle(request req) {
    const auto target = std::string(req.target());
    if (!host_is_ours(req))
      return send(
          make(req, http::status::forbidden, "text/plain",
               "this server answers only requests for 127.0.0.1:" + std::to_string(port_) + "\n"));
    if (target == "/" || target == "/index.html") {
      if (req.method() != http::verb::get && req.method() != http::verb::head)
        return send(not_allowed(req, "GET"));
      return send(
          make(req, http::status::ok, "text/html; charset=utf-8", std::string(page_html())));
    }
    if (target == "/events") {
      if (req.method() != http::verb::get) return send(not_allowed(req, "GET"));
      return start_stream();
    }
    if (target == "/run") {
      if (req.method() != http::verb::post) return send(not_allowed(req, "POST"));
      return send(start_run(req));
    }
    if (target == "/run.html") {
      if (req.method() != http::verb::get) return send(not_allowed(req, "GET"));
      if (board_.saved_page().empty())
        return send(make(req, http::status::not_found, "application/json",
                         error_json("no run has finished yet")));
      auto res = make(req, http::status::ok, "text/html; charset=utf-8", board_.saved_page());
      res.set(http::field::content_disposition, "attachment; filename=\"zkcoord-try-it-run.html\"");
      return send(std::move(res));
    }
    send(make(req, http::status::not_found, "text/plain", "not found\n"));
  }

  response start_run(const request& req) {
    const auto type = std::string(req[http::field::content_type]);
    if (!type.starts_with("application/json"))
      return make(req, http::status::unsupported_media_type, "application/json",
                  error_json("send the run's parameters as application/json"));
    const auto parsed = parse_lesson_request(req.body());
    if (!parsed.problem.empty())
      return make(req, http::status::bad_request, "application/json", error_json(parsed.problem));
    const auto started = board_.start(parsed.params);
    if (started.busy)
      return make(req, http::status::conflict, "application/json", error_json(started.problem));
    if (!started.problem.empty())
      return make(req, http::status::bad_request, "application/json", error_json(started.problem));
    return make(req, http::status::accepted, "application/json",
                boost::json::serialize(boost::json::object{{"run", started.run}}));
  }

  response make(const request& req, http::status status, const char* type, std::string body) {
    response res{status, req.version()};
    res.set(http::field::content_type, type);
    res.set(http::field::cache_control, "no-store");
    res.set("X-Content-Type-Options", "nosniff");
    res.set("Referrer-Policy", "no-referrer");
    res.set("Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
            "img-src data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'");
    res.keep_alive(req.keep_alive());
    if (req.method() != http::verb::head) res.body() = std::move(body);
    res.prepare_payload();
    return res;
  }

  response not_allowed(const request& req, const char* allowed) {
    auto res = make(req, http::status::method_not_allowed, "text/plain", "method not allowed\n");
    res.set(http::field::allow, allowed);
    return res;
  }

  void refuse_large() {
    request req;
    req.version(11);
    req.keep_alive(false);
    send(make(req, http::status::payload_too_large, "application/json",
              error_json("the request is larger than " + std::to_string(max_body) + " bytes")));
  }

  void send(response res) {
    auto shared = std::make_shared<response>(std::move(res));
    http::async_write(stream_, *shared,
                      [self = shared_from_this(), shared](beast::error_code ec, std::size_t) {
                        if (ec) return;
                        if (shared->keep_alive()) return self->read();
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                      });
  }

  // The event stream: a plain HTTP/1.1 body that ends when the connection does.
  void start_stream() {
    stream_.expires_never();
    queue_.push_back(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
        "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n");
    write_next();
    watch_close();
    board_.listen([weak = weak_from_this()](const std::string& message) {
      auto self = weak.lock();
      if (!self || self->closed_) return false;
      self->queue_.push_back(message);
      if (self->queue_.size() == 1) self->write_next();
      return true;
    });
  }

  void write_next() {
    if (queue_.empty() || closed_) return;
    asio::async_write(stream_.socket(), asio::buffer(queue_.front()),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return self->close();
                        self->queue_.pop_front();
                        self->write_next();
                      });
  }

  // A closed tab shows as the end of what the browser sends.
  void watch_close() {
    stream_.socket().async_read_some(
        asio::buffer(sink_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
          if (ec) return self->close();
          self->watch_close();
        });
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    beast::error_code ignored;
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  lesson_board& board_;
  std::uint16_t port_;
  std::deque<std::string> queue_;
  char sink_[512];
  bool closed_ = false;
};

}  // namespace

http_server::http_server(asio::io_context& io, lesson_board& board, std::uint16_t port)
    : acceptor_(io, tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), port)),
      board_(board),
      port_(acceptor_.local_endpoint().port()) {
  accept();
}

void http_server::stop() {
  beast::error_code ignored;
  acceptor_.close(ignored);
}

void http_server::accept() {
  acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec) return;
    std::make_shared<connection>(std::move(socket), board_, port_)->read();
    accept();
  });
}

}  // namespace zkcoord::cli::try_it
