/* SPDX-License-Identifier: MIT */
/* mfstat serve's HTTP side: libmicrohttpd, one polling thread, bounded connections. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mfstat/serve/serve.h"

struct mf_server {
	struct MHD_Daemon *d;
	struct mf_exporter *x;
	struct mf_strbuf body; /* the last exposition, reused (scrapes are served one at a time) */
	unsigned long requests;
	int fd;
};

/* "ADDR:PORT", ":PORT", "[V6]:PORT" into a socket address. */
static int parse(const char *listen, struct sockaddr_storage *ss, socklen_t *len, struct mf_error *err)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *port;
	char *end;
	unsigned long pn;
	size_t hl;
	bool v6 = false;

	if (!listen || !*listen)
		listen = "127.0.0.1:10113";
	if (listen[0] == '[') {
		const char *close = strchr(listen, ']');
		if (!close || close[1] != ':')
			return mf_error_set(err, MF_EUSAGE, "serve", 0, 0,
					    "--listen '%s': an IPv6 address goes in brackets before :PORT "
					    "([::1]:10113)",
					    listen);
		hl = (size_t)(close - listen - 1);
		if (hl >= sizeof(host))
			return mf_error_set(err, MF_EUSAGE, "serve", 0, 0, "--listen '%s': address too long", listen);
		memcpy(host, listen + 1, hl);
		host[hl] = '\0';
		port = close + 2;
		v6 = true;
	} else {
		colon = strrchr(listen, ':');
		if (!colon)
			return mf_error_set(err, MF_EUSAGE, "serve", 0, 0,
					    "--listen '%s' is not ADDR:PORT (127.0.0.1:10113, :10113, [::1]:10113)",
					    listen);
		hl = (size_t)(colon - listen);
		if (hl >= sizeof(host))
			return mf_error_set(err, MF_EUSAGE, "serve", 0, 0, "--listen '%s': address too long", listen);
		memcpy(host, listen, hl);
		host[hl] = '\0';
		port = colon + 1;
	}
	errno = 0;
	pn = strtoul(port, &end, 10);
	if (!*port || *end || errno || pn > 65535 || port[0] == '-' || port[0] == '+')
		return mf_error_set(err, MF_EUSAGE, "serve", 0, 0, "--listen '%s': the port must be 0 to 65535",
				    listen);
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)pn);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return mf_error_set(err, MF_EUSAGE, "serve", 0, 0, "--listen '%s': '%s' is not an IPv6 address",
					    listen, host);
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)pn);
		if (!host[0])
			a->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return mf_error_set(err, MF_EUSAGE, "serve", 0, 0,
					    "--listen '%s': '%s' is not an IPv4 address (numeric, such as 127.0.0.1)",
					    listen, host);
		*len = sizeof(*a);
	}
	return 0;
}

/* The address and port of a socket address as "ADDR:PORT" or "[V6]:PORT". */
static void say_addr(const struct sockaddr_storage *ss, char *out, size_t n)
{
	char h[INET6_ADDRSTRLEN];
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
		inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof(h));
		snprintf(out, n, "[%s]:%u", h, ntohs(a->sin6_port));
	} else {
		const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
		inet_ntop(AF_INET, &a->sin_addr, h, sizeof(h));
		snprintf(out, n, "%s:%u", h, ntohs(a->sin_port));
	}
}

int mf_server_parse_listen(const char *listen, char *addr, size_t n, struct mf_error *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int rc = parse(listen, &ss, &len, err);
	if (rc == 0 && addr)
		say_addr(&ss, addr, n);
	return rc;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type, const char *body,
			     size_t len, const char *allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static const char index_page[] =
	"<!DOCTYPE html>\n<html><head><title>mfstat exporter</title></head><body>\n"
	"<h1>mfstat exporter</h1>\n<p>IBM Z CPU-MF counters of every CPU, for Prometheus: "
	"<a href=\"/metrics\">/metrics</a></p>\n</body></html>\n";

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct mf_server *s = cls;
	(void)version, (void)upload, (void)upload_size, (void)con_cls;
	s->requests++;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
		static const char msg[] = "405 method not allowed: GET or HEAD\n";
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", msg, sizeof(msg) - 1,
			     "GET, HEAD");
	}
	if (strcmp(url, "/metrics") == 0) {
		const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
		enum mf_prom_fmt fmt =
			accept && strstr(accept, "application/openmetrics-text") ? MF_PROM_OPENMETRICS : MF_PROM_TEXT;
		mf_exporter_scrape(s->x, fmt, &s->body);
		if (s->body.failed) {
			static const char msg[] = "500 out of memory writing the exposition\n";
			mf_strbuf_free(&s->body);
			mf_strbuf_init(&s->body);
			return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", msg,
				     sizeof(msg) - 1, NULL);
		}
		return reply(conn, MHD_HTTP_OK, mf_prom_content_type(fmt), s->body.buf ? s->body.buf : "", s->body.len,
			     NULL);
	}
	if (strcmp(url, "/") == 0)
		return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", index_page, sizeof(index_page) - 1, NULL);
	{
		static const char msg[] = "404 not found: the metrics are at /metrics\n";
		return reply(conn, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8", msg, sizeof(msg) - 1, NULL);
	}
}

/* libmicrohttpd's own messages (a connection it dropped, ...): not shown, the requests speak for themselves. */
static void quiet_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls, (void)fmt, (void)ap;
}

int mf_server_start(struct mf_server **out, struct mf_exporter *x, const struct mf_server_opts *o, char *bound,
		    size_t n, struct mf_error *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct mf_server *s;
	int one = 1, rc;

	*out = NULL;
	rc = parse(o->listen, &ss, &len, err);
	if (rc)
		return rc;
	s = calloc(1, sizeof(*s));
	if (!s)
		return mf_error_nomem(err, "serve", 0, "starting the server");
	s->x = x;
	mf_strbuf_init(&s->body);
	say_addr(&ss, bound, n);
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		rc = mf_error_set(err, MF_EIO, "serve", 0, 0, "%s: cannot make a socket: %s", bound, strerror(errno));
		free(s);
		return rc;
	}
	setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss.ss_family == AF_INET6)
		setsockopt(s->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(s->fd, (struct sockaddr *)&ss, len) != 0 || listen(s->fd, 64) != 0) {
		int e = errno;
		rc = mf_error_set(err, MF_EIO, "serve", 0, 0, "cannot listen on %s: %s%s", bound, strerror(e),
				  e == EADDRINUSE ? " (another program has the port: --listen ADDR:PORT takes another)"
				  : e == EACCES   ? " (ports below 1024 need privileges)"
						  : "");
		close(s->fd);
		free(s);
		return rc;
	}
	len = sizeof(ss);
	if (getsockname(s->fd, (struct sockaddr *)&ss, &len) == 0)
		say_addr(&ss, bound, n);
	s->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
					(ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, handle, s, MHD_OPTION_LISTEN_SOCKET, s->fd, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned)(o->max_conn ? o->max_conn : 32), MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned)(o->timeout ? o->timeout : 10), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)(o->conn_mem ? o->conn_mem : 16384), MHD_OPTION_EXTERNAL_LOGGER, quiet_log,
				NULL, MHD_OPTION_END);
	if (!s->d) {
		rc = mf_error_set(err, MF_EIO, "serve", 0, 0, "libmicrohttpd could not start serving on %s", bound);
		close(s->fd);
		free(s);
		return rc;
	}
	*out = s;
	return 0;
}

unsigned long mf_server_requests(const struct mf_server *s)
{
	return s->requests;
}

void mf_server_stop(struct mf_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->d); /* closes the listening socket too */
	mf_strbuf_free(&s->body);
	free(s);
}
