// SPDX-License-Identifier: MIT
/* Packet pool: one allocation up front, a shared free stack and per-thread caches. */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mqtx/pkt.h>

#include "base/internal.h"
#include "base/lock.h"
#include "base/tslot.h"

#define POOL_MAX_COUNT (1u << 26)
#define POOL_MAX_CACHE 4096u
#define POOL_FRAME_MIN 512u
#define POOL_FRAME_MAX 65536u
/* A pool with this much of whole pages asks for transparent huge pages. */
#define POOL_HUGE (2u << 20)
#define POOL_PAGE 4096u

struct pool_cache {
	atomic_uint len;
	uint32_t seen_drain; /* the pool's @drain when this cache last gave all back */
	struct mqtx_pkt **objs;
} __attribute__((aligned(MQTX_CACHE_LINE)));

/* A thread keeps at most this share of a pool (1/8) in its cache: a small pool is not held
 * in the cache of a thread that frees (a driver's completion thread) while another allocates. */
#define POOL_CACHE_SHARE 8u

struct mqtx_pkt_pool {
	uint32_t count;
	uint32_t elt_size;
	uint32_t headroom;
	uint32_t buf_size;
	uint32_t cache_size;
	uint32_t frame; /* 0, or every packet is a frame of this size (mqtx_pool_create_frames) */
	char *mem;
	struct mqtx_pkt **cache_mem;
	atomic_ullong failures;
	/* Bumped when an allocation finds the pool dry: each thread's next free then gives its
	 * whole cache back to the shared stack. */
	atomic_uint drain;
	atomic_uint refs; /* the creator's, and one per mqtx_pool_hold() */
	struct mqtx_spinlock lock __attribute__((aligned(MQTX_CACHE_LINE)));
	uint32_t free_len;
	struct mqtx_pkt **free_stack;
	struct mqtx_pkt_pool *next_pool, *prev_pool;
	mqtx__pool_release_fn release; /* told of every packet that comes back (what-if) */
	void *release_arg;
	struct pool_cache caches[MQTX_MAX_TSLOTS];
};

/* Every pool, so that a thread that exits can hand its caches back (pool_slot_release). */
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mqtx_pkt_pool *pools;

_Static_assert(sizeof(struct mqtx_pkt) == 2 * MQTX_CACHE_LINE, "packet metadata is two lines");

static void stack_give(struct mqtx_pkt_pool *p, struct mqtx_pkt **objs, unsigned n);

/* The thread owning @slot is exiting: its cached packets go back to each pool's shared stack,
 * or a pool could look empty to every other thread while an exited one holds its packets. */
static void pool_slot_release(int slot)
{
	pthread_mutex_lock(&pools_lock);
	for (struct mqtx_pkt_pool *p = pools; p; p = p->next_pool) {
		struct pool_cache *c = &p->caches[slot];
		unsigned len = atomic_load_explicit(&c->len, memory_order_relaxed);

		if (p->cache_size && len) {
			stack_give(p, c->objs, len);
			atomic_store_explicit(&c->len, 0, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&pools_lock);
}

/*
 * A queue's backlog visits its packets in no order of address, each a page or half a page from
 * the next: on 4 KiB pages a TLB miss per packet. The whole pages of a big pool's area are advised
 * MADV_HUGEPAGE; the kernel backs every 2 MiB-aligned stretch of them with a huge page where it
 * has transparent huge pages. Advice only, and the area is not aligned for it: an allocator hook
 * (a daemon's quota) would pay the alignment again in front of every pool.
 */
static void pool_advise_huge(char *mem, size_t size)
{
	uintptr_t start = ALIGN_UP((uintptr_t)mem, POOL_PAGE);
	uintptr_t end = ((uintptr_t)mem + size) & ~(uintptr_t)(POOL_PAGE - 1);

	if (end > start && end - start >= POOL_HUGE)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

/* Packets of @elt bytes from @mem on, each at a multiple of @elt; 0 or -EINVAL/-ENOMEM. */
static int pool_new(const struct mqtx_pool_cfg *cfg, uint32_t room, uint32_t head, size_t elt,
		    size_t align, uint32_t frame, struct mqtx_pkt_pool **out)
{
	uint32_t cache = cfg->cache_size ? cfg->cache_size : 256;
	size_t size;

	if (cache > cfg->count / POOL_CACHE_SHARE)
		cache = cfg->count / POOL_CACHE_SHARE;
	struct mqtx_pkt_pool *p;

	p = mqtx__alloc_aligned(sizeof(*p), MQTX_CACHE_LINE);
	if (!p)
		return -ENOMEM;
	memset(p, 0, sizeof(*p));
	p->count = cfg->count;
	p->elt_size = (uint32_t)elt;
	p->headroom = head;
	p->buf_size = room + head;
	p->cache_size = cache > 1 ? cache : 0;
	p->frame = frame;
	atomic_init(&p->refs, 1);
	mqtx_spin_init(&p->lock);
	size = ALIGN_UP(elt * cfg->count, align);
	p->mem = mqtx__alloc_aligned(size, align);
	if (!p->mem)
		goto err_pool;
	pool_advise_huge(p->mem, size);
	p->free_stack = mqtx__alloc(sizeof(*p->free_stack) * cfg->count);
	if (!p->free_stack)
		goto err_mem;
	if (p->cache_size) {
		p->cache_mem = mqtx__alloc(sizeof(*p->cache_mem) * p->cache_size * MQTX_MAX_TSLOTS);
		if (!p->cache_mem)
			goto err_stack;
		for (int i = 0; i < MQTX_MAX_TSLOTS; i++)
			p->caches[i].objs = p->cache_mem + (size_t)i * p->cache_size;
	}
	for (uint32_t i = 0; i < cfg->count; i++) {
		struct mqtx_pkt *pkt = (struct mqtx_pkt *)(p->mem + (size_t)i * elt);

		pkt->pool = p;
		pkt->buf_size = p->buf_size;
		p->free_stack[cfg->count - 1 - i] = pkt;
	}
	p->free_len = cfg->count;
	mqtx__tslot_on_release(pool_slot_release);
	pthread_mutex_lock(&pools_lock);
	p->next_pool = pools;
	if (pools)
		pools->prev_pool = p;
	pools = p;
	pthread_mutex_unlock(&pools_lock);
	*out = p;
	return 0;

err_stack:
	mqtx__free(p->free_stack);
err_mem:
	mqtx__free(p->mem);
err_pool:
	mqtx__free(p);
	return -ENOMEM;
}

static bool pool_cfg_ok(const struct mqtx_pool_cfg *cfg, struct mqtx_pkt_pool **out)
{
	return cfg && out && cfg->count && cfg->count <= POOL_MAX_COUNT &&
	       cfg->cache_size <= POOL_MAX_CACHE;
}

int mqtx_pool_create(const struct mqtx_pool_cfg *cfg, struct mqtx_pkt_pool **out)
{
	uint32_t room, head;

	if (!pool_cfg_ok(cfg, out))
		return -EINVAL;
	room = cfg->data_room ? cfg->data_room : 2048;
	head = cfg->headroom ? cfg->headroom : 128;
	if ((uint64_t)room + head > UINT32_MAX / 2)
		return -EINVAL;
	return pool_new(cfg, room, head,
			ALIGN_UP(sizeof(struct mqtx_pkt) + room + head, MQTX_CACHE_LINE),
			MQTX_CACHE_LINE, 0, out);
}

int mqtx_pool_create_frames(const struct mqtx_pool_cfg *cfg, uint32_t frame,
			    struct mqtx_pkt_pool **out)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t room, head;

	if (!pool_cfg_ok(cfg, out) || frame < POOL_FRAME_MIN || frame > POOL_FRAME_MAX ||
	    (frame & (frame - 1)))
		return -EINVAL;
	head = cfg->headroom ? cfg->headroom : 128;
	if (head >= frame - sizeof(struct mqtx_pkt))
		return -EINVAL;
	room = cfg->data_room ? cfg->data_room : frame - (uint32_t)sizeof(struct mqtx_pkt) - head;
	if ((uint64_t)sizeof(struct mqtx_pkt) + head + room > frame)
		return -EINVAL;
	/* A UMEM starts on a page (net/xdp/xdp_umem.c xdp_umem_reg()); a frame of a page or less
	 * then never straddles one. */
	return pool_new(cfg, room, head, frame, page > 0 ? (size_t)page : 4096, frame, out);
}

int mqtx_pool_frames(const struct mqtx_pkt_pool *pool, struct mqtx_pool_frames *out)
{
	if (!pool || !pool->frame)
		return -EINVAL;
	*out = (struct mqtx_pool_frames){ .base = pool->mem,
					  .size = (size_t)pool->count * pool->frame,
					  .frame = pool->frame,
					  .count = pool->count,
					  .buf_size = pool->buf_size };
	return 0;
}

void mqtx_pool_hold(struct mqtx_pkt_pool *pool)
{
	atomic_fetch_add(&pool->refs, 1);
}

void mqtx_pool_destroy(struct mqtx_pkt_pool *pool)
{
	if (!pool || atomic_fetch_sub(&pool->refs, 1) != 1)
		return;
	pthread_mutex_lock(&pools_lock);
	if (pool->prev_pool)
		pool->prev_pool->next_pool = pool->next_pool;
	else
		pools = pool->next_pool;
	if (pool->next_pool)
		pool->next_pool->prev_pool = pool->prev_pool;
	pthread_mutex_unlock(&pools_lock);
	mqtx__free(pool->cache_mem);
	mqtx__free(pool->free_stack);
	mqtx__free(pool->mem);
	mqtx__free(pool);
}

uint32_t mqtx_pool_count(const struct mqtx_pkt_pool *pool)
{
	return pool->count;
}

uint32_t mqtx_pool_in_use(const struct mqtx_pkt_pool *pool)
{
	struct mqtx_pkt_pool *p = (struct mqtx_pkt_pool *)pool;
	uint32_t avail;

	mqtx_spin_lock(&p->lock);
	avail = p->free_len;
	mqtx_spin_unlock(&p->lock);
	for (int i = 0; i < MQTX_MAX_TSLOTS; i++)
		avail += atomic_load_explicit(&p->caches[i].len, memory_order_relaxed);
	return p->count - avail;
}

uint64_t mqtx_pool_failures(const struct mqtx_pkt_pool *pool)
{
	return atomic_load_explicit(&pool->failures, memory_order_relaxed);
}

void mqtx_pkt_set_txtime(struct mqtx_pkt *pkt, uint64_t ns)
{
	pkt->txtime = ns;
}

uint64_t mqtx_pkt_txtime(const struct mqtx_pkt *pkt)
{
	return pkt->txtime;
}

static inline void pkt_reset(struct mqtx_pkt_pool *p, struct mqtx_pkt *pkt)
{
	pkt->next = NULL;
	pkt->data = pkt->buf + p->headroom;
	pkt->len = 0;
	pkt->queue_mapping = 0;
	pkt->flags = 0;
	pkt->hash = 0;
	pkt->priority = 0;
	pkt->mark = 0;
	pkt->tstamp = 0;
	pkt->user = 0;
	pkt->redirects = 0;
	pkt->expires = 0;
	pkt->txtime = 0;
}

/* Move up to @n packets between the shared stack and @objs; returns how many moved. */
static unsigned stack_take(struct mqtx_pkt_pool *p, struct mqtx_pkt **objs, unsigned n)
{
	mqtx_spin_lock(&p->lock);
	if (n > p->free_len)
		n = p->free_len;
	p->free_len -= n;
	memcpy(objs, p->free_stack + p->free_len, n * sizeof(*objs));
	mqtx_spin_unlock(&p->lock);
	return n;
}

static void stack_give(struct mqtx_pkt_pool *p, struct mqtx_pkt **objs, unsigned n)
{
	mqtx_spin_lock(&p->lock);
	memcpy(p->free_stack + p->free_len, objs, n * sizeof(*objs));
	p->free_len += n;
	mqtx_spin_unlock(&p->lock);
}

unsigned mqtx_pkt_alloc_bulk(struct mqtx_pkt_pool *p, struct mqtx_pkt **pkts, unsigned n)
{
	int slot = p->cache_size ? mqtx__tslot() : -1;
	unsigned got;

	if (slot < 0) {
		got = stack_take(p, pkts, n);
	} else {
		struct pool_cache *c = &p->caches[slot];
		unsigned len = atomic_load_explicit(&c->len, memory_order_relaxed);

		if (len < n)
			len += stack_take(p, c->objs + len, p->cache_size - len);
		got = n < len ? n : len;
		len -= got;
		memcpy(pkts, c->objs + len, got * sizeof(*pkts));
		atomic_store_explicit(&c->len, len, memory_order_relaxed);
		/* A bulk larger than the cache takes the rest from the shared stack (as DPDK's
		 * mempool does): only an empty pool may refuse. */
		if (got < n)
			got += stack_take(p, pkts + got, n - got);
	}
	for (unsigned i = 0; i < got; i++)
		pkt_reset(p, pkts[i]);
	if (got < n) {
		atomic_fetch_add_explicit(&p->failures, n - got, memory_order_relaxed);
		atomic_fetch_add_explicit(&p->drain, 1, memory_order_relaxed);
	}
	return got;
}

struct mqtx_pkt *mqtx_pkt_alloc(struct mqtx_pkt_pool *pool)
{
	struct mqtx_pkt *pkt;

	return mqtx_pkt_alloc_bulk(pool, &pkt, 1) ? pkt : NULL;
}

static void pool_put(struct mqtx_pkt_pool *p, struct mqtx_pkt *pkt, int slot)
{
	struct pool_cache *c;
	unsigned len, half, drain;

	if (p->release)
		p->release(p->release_arg, pkt);
	if (slot < 0 || !p->cache_size) {
		stack_give(p, &pkt, 1);
		return;
	}
	c = &p->caches[slot];
	len = atomic_load_explicit(&c->len, memory_order_relaxed);
	drain = atomic_load_explicit(&p->drain, memory_order_relaxed);
	if (drain != c->seen_drain) {
		/* Someone found the pool dry: what this thread keeps goes back where they look. */
		c->seen_drain = drain;
		stack_give(p, c->objs, len);
		len = 0;
	} else if (len == p->cache_size) {
		/* Keep the hot half, return the older half. */
		half = len / 2;
		stack_give(p, c->objs, half);
		memmove(c->objs, c->objs + half, (len - half) * sizeof(*c->objs));
		len -= half;
	}
	c->objs[len++] = pkt;
	atomic_store_explicit(&c->len, len, memory_order_relaxed);
}

void mqtx__pool_set_release(struct mqtx_pkt_pool *pool, mqtx__pool_release_fn fn, void *arg)
{
	pool->release_arg = arg;
	pool->release = fn;
}

void mqtx_pkt_free(struct mqtx_pkt *pkt)
{
	if (pkt)
		pool_put(pkt->pool, pkt, mqtx__tslot());
}

void mqtx_pkt_free_bulk(struct mqtx_pkt **pkts, unsigned n)
{
	int slot = mqtx__tslot();

	for (unsigned i = 0; i < n; i++)
		if (pkts[i])
			pool_put(pkts[i]->pool, pkts[i], slot);
}

unsigned mqtx_pkt_free_list(struct mqtx_pkt *head)
{
	int slot = mqtx__tslot();
	unsigned n = 0;

	while (head) {
		struct mqtx_pkt *next = head->next;

		pool_put(head->pool, head, slot);
		head = next;
		n++;
	}
	return n;
}
