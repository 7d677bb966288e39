/* SPDX-License-Identifier: MIT */
/* mqtx packets: a buffer with headroom and metadata, and a pool with per-thread caches. */
#ifndef MQTX_PKT_H
#define MQTX_PKT_H

#include <string.h>

#include <mqtx/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MQTX_PKT_CB_SIZE 40 /* the packet metadata fits two cache lines (src/base/pkt.c) */

/* Flags in struct mqtx_pkt.flags. */
#define MQTX_PKT_F_HASH_VALID 0x0001 /* hash holds the flow hash */
#define MQTX_PKT_F_NO_HASH    0x0002 /* hashed: the frame has no flow (non-IP) */
#define MQTX_PKT_F_QMAP_SET   0x0004 /* queue_mapping chosen by the sender: skip selection */
/* The sender has nothing of this packet's flow in flight: the flow may move to another queue
 * without being reordered (Linux's skb->ooo_okay; see mqtx_dev_set_flow_cache()). */
#define MQTX_PKT_F_OOO_OKAY 0x0008
/* An 802.11 management frame: WME sends it on AC_VO. */
#define MQTX_PKT_F_MGMT 0x0010
/* WME put it on an aggregation queue: send it in an A-MPDU (mac80211's IEEE80211_TX_CTL_AMPDU). */
#define MQTX_PKT_F_AMPDU 0x0020

/* The Ethernet header a receiving Linux takes off (eth_type_trans()) before tc sees the packet:
 * on the receive side, tc's byte counts and policers start after it. */
#define MQTX_ETH_HLEN 14

/* In struct mqtx_pkt.drop_reason: the drop happened on the receive side (an ingress qdisc). */
#define MQTX_PKT_DROP_RX 0x80

/**
 * struct mqtx_pkt - one packet. The metadata occupies two cache lines; the buffer follows.
 * @next: list linkage, owned by whoever holds the packet (a qdisc, a driver, a free list).
 * @data: first byte of the frame, inside the buffer after the headroom.
 * @len: frame length in bytes.
 * @queue_mapping: the TX queue chosen for it (set by selection, read by drivers).
 * @flags: MQTX_PKT_F_*.
 * @hash: the flow hash when MQTX_PKT_F_HASH_VALID.
 * @priority: the packet's priority (only the low 4 bits select a band or traffic class).
 * @mark: free for classification (like skb->mark).
 * @buf_size: size of the buffer (headroom + data room).
 * @tstamp: enqueue time in ns of the device clock, set by qdiscs that measure sojourn time.
 * @user: free for the application (a sequence number, a pointer); never touched by mqtx.
 * @pool: the pool the packet returns to.
 * @cb: control block, scratch space for the layer that currently owns the packet.
 * @drop_reason: set by mqtx_qdisc_drop() (enum mqtx_drop_reason, and MQTX_PKT_DROP_RX for a
 *        receive-side drop); counted when the dropped packet is freed.
 * @redirects: how many times a filter redirected or mirrored it to another device; past
 *        MQTX_XMIT_RECURSION_MAX it is dropped as a loop (MQTX_DROP_RECURSION).
 * @expires: when the packet is worth nothing any more, in ns of the device clock (0: never);
 *        set by a qdisc with a deadline (wme) as it hands the packet on, so that a driver that
 *        keeps packets before the wire (sim-wifi) can drop them there once past it.
 * @txtime: the earliest departure time the sender asked for, in ns of the device clock, 0 for
 *        none (Linux's skb->tstamp under SO_TXTIME / EDT); see mqtx_pkt_set_txtime().
 */
struct mqtx_pkt {
	struct mqtx_pkt *next;
	uint8_t *data;
	uint32_t len;
	uint16_t queue_mapping;
	uint16_t flags;
	uint32_t hash;
	uint32_t priority;
	uint32_t mark;
	uint32_t buf_size;
	uint64_t tstamp;
	uint64_t user;
	struct mqtx_pkt_pool *pool;
	uint8_t cb[MQTX_PKT_CB_SIZE];
	uint8_t drop_reason;
	uint8_t redirects;
	uint8_t pad_[6];
	uint64_t expires;
	uint64_t txtime;
	uint8_t buf[];
} __attribute__((aligned(MQTX_CACHE_LINE)));

/**
 * struct mqtx_pool_cfg - how to build a pool.
 * @count: number of packets (required, 1..2^26).
 * @data_room: bytes after the headroom (0: 2048).
 * @headroom: bytes reserved in front of @data for headers pushed later (0: 128).
 * @cache_size: packets each thread keeps for itself (0: 256; at most 4096; 1 disables caches),
 *        and never more than an eighth of @count (a pool of 8 to 15 has none), so that the
 *        threads that free (a driver's completion thread) cannot hold a small pool while
 *        another allocates. An allocation that finds the pool dry makes each thread give its
 *        whole cache back at its next free.
 */
struct mqtx_pool_cfg {
	uint32_t count;
	uint32_t data_room;
	uint32_t headroom;
	uint32_t cache_size;
};

struct mqtx_pkt_pool;

/**
 * mqtx_pool_create() - allocate every packet of a pool up front (one allocation).
 * Return: 0 and *@out; -EINVAL (count 0 or too large, cache_size too large), -ENOMEM.
 */
MQTX_API int mqtx_pool_create(const struct mqtx_pool_cfg *cfg, struct mqtx_pkt_pool **out);

/**
 * mqtx_pool_create_frames() - a pool whose packets are the frames of one page-aligned area:
 * packet i is the @frame bytes at offset i * @frame, its struct mqtx_pkt first, then its
 * headroom and data room. That is the layout of an AF_XDP UMEM in aligned mode, so a driver
 * can register the area with the kernel and send each packet where it was built
 * (mqtx_pool_frames()).
 * @cfg: as for mqtx_pool_create(), except that @data_room 0 means the rest of the frame.
 * @frame: bytes per frame, a power of two from 512 to 65536.
 * @out: the pool.
 * Return: 0 and *@out; -EINVAL (what mqtx_pool_create() refuses, @frame out of range, or
 * metadata, headroom and data room larger than @frame); -ENOMEM.
 */
MQTX_API int mqtx_pool_create_frames(const struct mqtx_pool_cfg *cfg, uint32_t frame,
				     struct mqtx_pkt_pool **out);

/**
 * struct mqtx_pool_frames - the memory of a pool made by mqtx_pool_create_frames().
 * @base: the first byte of the area, page aligned; packet i is at @base + i * @frame.
 * @size: bytes of the area, @count * @frame.
 * @frame: bytes per frame.
 * @count: frames, one per packet.
 * @buf_size: bytes of each packet's buffer (headroom and data room), within its frame.
 */
struct mqtx_pool_frames {
	void *base;
	size_t size;
	uint32_t frame;
	uint32_t count;
	uint32_t buf_size;
};

/**
 * mqtx_pool_frames() - where the frames of @pool are, for a driver that gives them to the
 * kernel (an AF_XDP UMEM): a packet's bytes are at offset pkt->data - @out->base, inside its
 * own frame.
 * Return: 0 and *@out; -EINVAL if @pool was not made by mqtx_pool_create_frames().
 */
MQTX_API int mqtx_pool_frames(const struct mqtx_pkt_pool *pool, struct mqtx_pool_frames *out);

/**
 * mqtx_pool_hold() - keep @pool past the mqtx_pool_destroy() of its creator: a device whose
 * driver sends the pool's packets in place holds it while the kernel may still have some of
 * them. Each hold is released by one more mqtx_pool_destroy().
 */
MQTX_API void mqtx_pool_hold(struct mqtx_pkt_pool *pool);

/**
 * mqtx_pool_destroy() - release the creator's reference to the pool, or a hold
 * (mqtx_pool_hold()); the last one frees it, and every packet must have been returned by
 * then. NULL is allowed.
 */
MQTX_API void mqtx_pool_destroy(struct mqtx_pkt_pool *pool);

/** mqtx_pool_count() - packets in the pool; mqtx_pool_in_use() - packets currently allocated. */
MQTX_API uint32_t mqtx_pool_count(const struct mqtx_pkt_pool *pool);
MQTX_API uint32_t mqtx_pool_in_use(const struct mqtx_pkt_pool *pool);

/**
 * mqtx_pkt_alloc() - take a packet: len 0, data at the headroom, metadata cleared.
 *
 * NULL means that every packet of the pool is in use right now: held by the caller, queued in
 * a qdisc or a driver's ring, or waiting for the driver's completion; it is not an error and
 * nothing leaks. Packets come back as the device sends them, so a sender that gets NULL waits
 * and tries again: until mqtx_pool_in_use() falls, or, to wait for everything it sent,
 * until mqtx_dev_all_tx_empty() is true. A pool of any size serves any number of sends this
 * way (the per-thread caches never hold more than an eighth of it each, and a dry pool makes
 * them give back what they hold); make it larger than what may be in flight (the queues'
 * limits and the driver's rings) to avoid the waits.
 * Return: the packet, or NULL when the pool is exhausted (counted: mqtx_pool_failures()).
 */
MQTX_API struct mqtx_pkt *mqtx_pkt_alloc(struct mqtx_pkt_pool *pool);

/** mqtx_pkt_alloc_bulk() - take up to @n packets into @pkts; returns how many. */
MQTX_API unsigned mqtx_pkt_alloc_bulk(struct mqtx_pkt_pool *pool, struct mqtx_pkt **pkts,
				      unsigned n);

/** mqtx_pkt_free() - return a packet to its pool (any thread); NULL is allowed. */
MQTX_API void mqtx_pkt_free(struct mqtx_pkt *pkt);

/** mqtx_pkt_free_bulk() - return @n packets (NULL entries are skipped). */
MQTX_API void mqtx_pkt_free_bulk(struct mqtx_pkt **pkts, unsigned n);

/** mqtx_pkt_free_list() - return a list linked through ->next; returns how many were freed. */
MQTX_API unsigned mqtx_pkt_free_list(struct mqtx_pkt *head);

/**
 * mqtx_pkt_set_txtime() - ask that @pkt leave no earlier than @ns, absolute time of the clock of
 * the device it is sent on (mqtx_dev_clock(); 0: as soon as possible, the default of a new
 * packet). The sender's earliest departure time, Linux's skb->tstamp set through SO_TXTIME: the
 * fq qdisc holds the packet until then and drops it (or, with horizon_cap, brings it closer)
 * when it is further ahead than its horizon; the other qdiscs ignore it.
 */
MQTX_API void mqtx_pkt_set_txtime(struct mqtx_pkt *pkt, uint64_t ns);

/** mqtx_pkt_txtime() - the earliest departure time of @pkt in ns, 0 when none was set. */
MQTX_API uint64_t mqtx_pkt_txtime(const struct mqtx_pkt *pkt);

/** mqtx_pool_failures() - allocations refused because the pool was empty. */
MQTX_API uint64_t mqtx_pool_failures(const struct mqtx_pkt_pool *pool);

/** mqtx_pkt_headroom() - bytes free in front of data; mqtx_pkt_tailroom() - after it. */
static inline uint32_t mqtx_pkt_headroom(const struct mqtx_pkt *pkt)
{
	return (uint32_t)(pkt->data - pkt->buf);
}

static inline uint32_t mqtx_pkt_tailroom(const struct mqtx_pkt *pkt)
{
	return pkt->buf_size - mqtx_pkt_headroom(pkt) - pkt->len;
}

/** mqtx_rx_tc_len() - the length a receive-side qdisc counts for @pkt, as Linux's skb->len
 *  is there: the frame less its Ethernet header (MQTX_ETH_HLEN); a runt's whole length. */
static inline uint32_t mqtx_rx_tc_len(const struct mqtx_pkt *pkt)
{
	return pkt->len >= MQTX_ETH_HLEN ? pkt->len - MQTX_ETH_HLEN : pkt->len;
}

/** mqtx_pkt_put() - extend the frame by @n bytes at its end; NULL if there is no room. */
static inline uint8_t *mqtx_pkt_put(struct mqtx_pkt *pkt, uint32_t n)
{
	uint8_t *tail = pkt->data + pkt->len;

	if (n > mqtx_pkt_tailroom(pkt))
		return NULL;
	pkt->len += n;
	return tail;
}

/** mqtx_pkt_push() - extend the frame by @n bytes in front (headroom); NULL if no room. */
static inline uint8_t *mqtx_pkt_push(struct mqtx_pkt *pkt, uint32_t n)
{
	if (n > mqtx_pkt_headroom(pkt))
		return NULL;
	pkt->data -= n;
	pkt->len += n;
	return pkt->data;
}

/** mqtx_pkt_pull() - remove @n bytes from the front; NULL if the frame is shorter. */
static inline uint8_t *mqtx_pkt_pull(struct mqtx_pkt *pkt, uint32_t n)
{
	if (n > pkt->len)
		return NULL;
	pkt->data += n;
	pkt->len -= n;
	return pkt->data;
}

/**
 * mqtx_pkt_copy() - a copy of @pkt from its own pool: its buffer up to the end of the frame
 * (the headroom too, the frame at the same place) and the metadata a filter or qdisc reads
 * (queue_mapping, flags, hash, priority, mark, user, redirects); the rest is as
 * mqtx_pkt_alloc() leaves it. What mirred's mirror and netem's duplicate send.
 * Return: the copy, or NULL when the pool is exhausted.
 */
static inline struct mqtx_pkt *mqtx_pkt_copy(const struct mqtx_pkt *pkt)
{
	struct mqtx_pkt *c = mqtx_pkt_alloc(pkt->pool);

	if (!c)
		return NULL;
	memcpy(c->buf, pkt->buf, mqtx_pkt_headroom(pkt) + pkt->len);
	c->data = c->buf + mqtx_pkt_headroom(pkt);
	c->len = pkt->len;
	c->queue_mapping = pkt->queue_mapping;
	c->flags = pkt->flags;
	c->hash = pkt->hash;
	c->priority = pkt->priority;
	c->mark = pkt->mark;
	c->user = pkt->user;
	c->redirects = pkt->redirects;
	return c;
}

/** A FIFO of packets linked through ->next. */
struct mqtx_pkt_list {
	struct mqtx_pkt *head, *tail;
	uint32_t len;
};

/* ---- packet lists: FIFOs linked through ->next (qdiscs, drivers) ---- */

static inline void mqtx_pkt_list_init(struct mqtx_pkt_list *l)
{
	l->head = l->tail = NULL;
	l->len = 0;
}

static inline void mqtx_pkt_list_add_tail(struct mqtx_pkt_list *l, struct mqtx_pkt *pkt)
{
	pkt->next = NULL;
	if (l->tail)
		l->tail->next = pkt;
	else
		l->head = pkt;
	l->tail = pkt;
	l->len++;
}

static inline void mqtx_pkt_list_add_head(struct mqtx_pkt_list *l, struct mqtx_pkt *pkt)
{
	pkt->next = l->head;
	l->head = pkt;
	if (!l->tail)
		l->tail = pkt;
	l->len++;
}

static inline struct mqtx_pkt *mqtx_pkt_list_pop(struct mqtx_pkt_list *l)
{
	struct mqtx_pkt *pkt = l->head;

	if (pkt) {
		l->head = pkt->next;
		if (!l->head)
			l->tail = NULL;
		l->len--;
		pkt->next = NULL;
	}
	return pkt;
}

/** mqtx_pkt_link() - push @pkt onto the singly linked list at *@head (a to_free list). */
static inline void mqtx_pkt_link(struct mqtx_pkt *pkt, struct mqtx_pkt **head)
{
	pkt->next = *head;
	*head = pkt;
}

/** mqtx_pkt_list_splice() - move all of @l onto the list at *@head in one step; @l is empty
 *  after. */
static inline void mqtx_pkt_list_splice(struct mqtx_pkt_list *l, struct mqtx_pkt **head)
{
	if (l->tail) {
		l->tail->next = *head;
		*head = l->head;
	}
	mqtx_pkt_list_init(l);
}

#ifdef __cplusplus
}
#endif
#endif
