// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a deliberately misbehaving RPC-over-RDMA client for svcrdma.
 *
 * Connects to an NFS/RDMA server and sends transport headers a correct
 * client never would; checks that each is answered the way RFC 8166
 * requires (ERR_VERS, ERR_CHUNK, silently dropped, or the connection
 * closed) and that the server still answers a good NULL call afterwards.  Finally it
 * offers a Read chunk with a bogus steering tag, which must cost the
 * connection and nothing else: a fresh connection must work again.
 *
 * Usage: hostile SERVER_ADDR PORT.  Exit status 0 when every check passes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define BUF_SIZE	4096
#define NR_RECV		16

struct conn {
	struct rdma_cm_id *id;
	struct ibv_mr *smr, *rmr;
	uint8_t sbuf[BUF_SIZE];
	uint8_t rbuf[NR_RECV][BUF_SIZE];
	uint32_t last_len;
	uint8_t *last;
};

static int failures;
static uint32_t next_xid = 0x5eed0000;

static void check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	fflush(stdout);
	if (!ok)
		failures++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int post_recv(struct conn *c, int i)
{
	return rdma_post_recv(c->id, (void *)(uintptr_t)i, c->rbuf[i],
			      BUF_SIZE, c->rmr);
}

static struct conn *conn_open(const char *host, const char *port)
{
	/* RFC 8797: version 1, remote invalidation off, 4 KiB each way. */
	uint8_t pdata[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 0, 3, 3 };
	struct rdma_addrinfo hints = { 0 }, *res;
	struct ibv_qp_init_attr attr = { 0 };
	struct rdma_conn_param param = { 0 };
	struct conn *c = calloc(1, sizeof(*c));
	int i;

	if (!c)
		return NULL;
	hints.ai_port_space = RDMA_PS_TCP;
	if (rdma_getaddrinfo(host, port, &hints, &res)) {
		perror("rdma_getaddrinfo");
		goto out_free;
	}
	attr.cap.max_send_wr = 8;
	attr.cap.max_recv_wr = NR_RECV;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_all = 1;
	attr.qp_type = IBV_QPT_RC;
	if (rdma_create_ep(&c->id, res, NULL, &attr)) {
		perror("rdma_create_ep");
		rdma_freeaddrinfo(res);
		goto out_free;
	}
	rdma_freeaddrinfo(res);
	c->smr = rdma_reg_msgs(c->id, c->sbuf, sizeof(c->sbuf));
	c->rmr = ibv_reg_mr(c->id->pd, c->rbuf, sizeof(c->rbuf),
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->smr || !c->rmr)
		goto out_ep;
	for (i = 0; i < NR_RECV; i++)
		if (post_recv(c, i))
			goto out_ep;
	param.private_data = pdata;
	param.private_data_len = sizeof(pdata);
	param.responder_resources = 4;
	param.initiator_depth = 4;
	param.retry_count = 3;
	param.rnr_retry_count = 7;
	if (rdma_connect(c->id, &param)) {
		perror("rdma_connect");
		goto out_ep;
	}
	return c;

out_ep:
	rdma_destroy_ep(c->id);
out_free:
	free(c);
	return NULL;
}

static void conn_close(struct conn *c)
{
	rdma_disconnect(c->id);
	if (c->smr)
		rdma_dereg_mr(c->smr);
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	rdma_destroy_ep(c->id);
	free(c);
}

/* Poll @cq for one completion for up to @secs seconds. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now() + secs;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
		usleep(1000);
	} while (now() < end);
	return 0;
}

static int send_msg(struct conn *c, const uint32_t *words, int nwords,
		    int extra_bytes)
{
	struct ibv_wc wc;
	int len = nwords * 4 + extra_bytes;

	memset(c->sbuf, 0, sizeof(c->sbuf));
	memcpy(c->sbuf, words, nwords * 4);
	if (rdma_post_send(c->id, NULL, c->sbuf, len, c->smr, 0))
		return -1;
	if (poll_one(c->id->send_cq, &wc, 10) != 1 ||
	    wc.status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/* Wait for one reply; returns its length or -1.  Reposts the buffer. */
static int recv_msg(struct conn *c, double secs)
{
	struct ibv_wc wc;
	int i;

	if (poll_one(c->id->recv_cq, &wc, secs) != 1 ||
	    wc.status != IBV_WC_SUCCESS)
		return -1;
	i = (int)wc.wr_id;
	c->last = c->rbuf[i];
	c->last_len = wc.byte_len;
	if (post_recv(c, i))
		return -1;
	return wc.byte_len;
}

static uint32_t word(const struct conn *c, int i)
{
	uint32_t w;

	memcpy(&w, c->last + 4 * i, 4);
	return ntohl(w);
}

/* An RDMA_MSG header with empty lists, then an NFSv3 NULL call. */
static int null_call(uint32_t *w, uint32_t xid)
{
	int n = 0;

	w[n++] = htonl(xid); w[n++] = htonl(1); w[n++] = htonl(8);
	w[n++] = htonl(0); w[n++] = 0; w[n++] = 0; w[n++] = 0;
	w[n++] = htonl(xid); w[n++] = 0; w[n++] = htonl(2);
	w[n++] = htonl(100003); w[n++] = htonl(3); w[n++] = 0;
	w[n++] = 0; w[n++] = 0; w[n++] = 0; w[n++] = 0;
	return n;
}

static void expect_null_reply(struct conn *c, const char *what)
{
	uint32_t w[32];
	uint32_t xid = next_xid++;
	int n = null_call(w, xid);

	if (send_msg(c, w, n, 0)) {
		check(0, what);
		return;
	}
	n = recv_msg(c, 20);
	/* xid, vers, credits, MSG, 3 empty lists, then the RPC reply. */
	check(n >= 28 + 24 && word(c, 0) == xid && word(c, 3) == 0 &&
	      word(c, 7) == xid && word(c, 8) == 1 && word(c, 9) == 0, what);
}

/* Send @w and expect RDMA_ERROR with @err for its XID. */
static void expect_error(struct conn *c, const uint32_t *w, int nwords,
			 uint32_t err, const char *what)
{
	int n;

	if (send_msg(c, w, nwords, 0)) {
		check(0, what);
		return;
	}
	n = recv_msg(c, 20);
	check(n >= 20 && word(c, 0) == ntohl(w[0]) && word(c, 3) == 4 &&
	      word(c, 4) == err, what);
}

int main(int argc, char **argv)
{
	struct conn *c;
	uint32_t w[64];
	int n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s SERVER PORT\n", argv[0]);
		return 2;
	}
	c = conn_open(argv[1], argv[2]);
	check(c != NULL, "connect with RFC 8797 private data");
	if (!c)
		return 1;
	expect_null_reply(c, "good NULL call answered");

	/* Version 2 header: ERR_VERS. */
	n = null_call(w, next_xid++);
	w[1] = htonl(2);
	expect_error(c, w, n, 1, "rdma_vers 2 answered with ERR_VERS");

	/* Unknown procedure: ERR_CHUNK. */
	n = null_call(w, next_xid++);
	w[3] = htonl(7);
	expect_error(c, w, n, 2, "unknown rdma_proc answered with ERR_CHUNK");

	/* RDMA_MSGP, retired by RFC 8166: ERR_CHUNK. */
	n = 0;
	w[n++] = htonl(next_xid++); w[n++] = htonl(1); w[n++] = htonl(8);
	w[n++] = htonl(2); w[n++] = htonl(4); w[n++] = htonl(64);
	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	expect_error(c, w, n, 2, "RDMA_MSGP answered with ERR_CHUNK");

	/* Header cut short inside the Read list: ERR_CHUNK. */
	n = 0;
	w[n++] = htonl(next_xid++); w[n++] = htonl(1); w[n++] = htonl(8);
	w[n++] = 0; w[n++] = htonl(1); w[n++] = 0;
	expect_error(c, w, n, 2, "truncated Read list answered with ERR_CHUNK");

	/* A discriminator of 2: ERR_CHUNK. */
	n = null_call(w, next_xid++);
	w[4] = htonl(2);
	expect_error(c, w, n, 2, "bad list discriminator answered with ERR_CHUNK");

	/*
	 * A Read chunk far bigger than any call, placed after the 40-byte
	 * inline NULL call: ERR_CHUNK, and nothing is read.
	 */
	n = 0;
	w[n++] = htonl(next_xid); w[n++] = htonl(1); w[n++] = htonl(8);
	w[n++] = 0;
	w[n++] = htonl(1); w[n++] = htonl(40);
	w[n++] = htonl(0xdeadbeef); w[n++] = htonl(0x40000000);
	w[n++] = 0; w[n++] = htonl(0x1000);
	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	null_call(w + n, next_xid++);
	memmove(w + 13, w + 20, 10 * 4);
	n = 23;
	expect_error(c, w, n, 2, "1 GiB Read chunk answered with ERR_CHUNK");

	/* Five Write chunks, one over the codec's limit: ERR_CHUNK. */
	n = 0;
	w[n++] = htonl(next_xid++); w[n++] = htonl(1); w[n++] = htonl(8);
	w[n++] = 0; w[n++] = 0;
	for (int k = 0; k < 5; k++) {
		w[n++] = htonl(1); w[n++] = htonl(1);
		w[n++] = htonl(0x1234); w[n++] = htonl(16); w[n++] = 0;
		w[n++] = 0;
	}
	w[n++] = 0; w[n++] = 0;
	expect_error(c, w, n, 2, "five Write chunks answered with ERR_CHUNK");

	/* RDMA_ERROR as a call: dropped, never answered with an error. */
	n = 0;
	w[n++] = htonl(next_xid++); w[n++] = htonl(1); w[n++] = htonl(8);
	w[n++] = htonl(4); w[n++] = htonl(2);
	send_msg(c, w, n, 0);
	/* The next reply must be the NULL call's, proving it was dropped. */
	expect_null_reply(c, "RDMA_ERROR call dropped, connection alive");

	/* Too short to carry an XID: nothing to answer, so we are cut off. */
	send_msg(c, w, 2, 0);
	n = recv_msg(c, 10);
	check(n < 0, "8-byte message closes the connection");
	conn_close(c);
	c = conn_open(argv[1], argv[2]);
	check(c != NULL, "reconnect after the short message");
	if (!c)
		return 1;
	expect_null_reply(c, "server answers on the new connection");

	/*
	 * A NOMSG call whose Position-zero Read chunk has a bogus steering
	 * tag: the server's RDMA Read fails, which must cost this
	 * connection and nothing more.
	 */
	n = 0;
	w[n++] = htonl(next_xid++); w[n++] = htonl(1); w[n++] = htonl(8);
	w[n++] = htonl(1);
	w[n++] = htonl(1); w[n++] = 0;
	w[n++] = htonl(0xbad0bad0); w[n++] = htonl(64);
	w[n++] = htonl(0x1); w[n++] = htonl(0x2000);
	w[n++] = 0; w[n++] = 0; w[n++] = 0;
	send_msg(c, w, n, 0);
	n = recv_msg(c, 10);
	check(n < 0, "Read with a bogus rkey gets no reply");
	conn_close(c);

	c = conn_open(argv[1], argv[2]);
	check(c != NULL, "reconnect after the server dropped us");
	if (c) {
		expect_null_reply(c, "server still answers on a new connection");
		conn_close(c);
	}

	printf("%d failure(s)\n", failures);
	return failures ? 1 : 0;
}
