// SPDX-License-Identifier: MIT
// mqtxd's per-user accounts: connections open and library memory held, the memory counted
// through the library's allocator hook so that one user cannot take all of the daemon's.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include <mqtx/common.h>

#include "quota.h"

struct account {
	struct account *next;
	uid_t uid;
	unsigned conns;	      /* under Q.lock */
	_Atomic size_t bytes; /* library memory charged and not yet freed */
};

/* In front of every block the hook hands out: whom it is charged to and how to free it. A
 * block is freed by whatever thread drops the object (an RCU callback, a generator), so the
 * owner travels with it. */
struct block_head {
	struct account *acct; /* NULL: the daemon's own (start-up, generator threads) */
	size_t size;	      /* charged bytes */
	size_t pad;	      /* from the start of the real allocation to the block */
};

static struct {
	pthread_mutex_t lock;
	struct account *list;
	size_t max;
} Q = { .lock = PTHREAD_MUTEX_INITIALIZER };

static __thread struct account *charge_to;
static __thread bool refused;

static void *q_alloc(size_t size, size_t align, void *arg)
{
	size_t a = align < 16 ? 16 : align;
	size_t pad = (sizeof(struct block_head) + a - 1) / a * a, total = pad + size;
	struct account *acct = charge_to;
	struct block_head *h;
	void *base;

	(void)arg;
	if (size > SIZE_MAX - pad)
		return NULL;
	if (acct && atomic_fetch_add(&acct->bytes, total) + total > Q.max && Q.max) {
		atomic_fetch_sub(&acct->bytes, total);
		refused = true;
		return NULL;
	}
	if (posix_memalign(&base, a, total)) {
		if (acct)
			atomic_fetch_sub(&acct->bytes, total);
		return NULL;
	}
	h = (struct block_head *)((char *)base + pad) - 1;
	*h = (struct block_head){ .acct = acct, .size = total, .pad = pad };
	return (char *)base + pad;
}

static void q_free(void *ptr, void *arg)
{
	struct block_head *h = (struct block_head *)ptr - 1;

	(void)arg;
	if (h->acct)
		atomic_fetch_sub(&h->acct->bytes, h->size);
	free((char *)ptr - h->pad);
}

void quota_init(size_t max_bytes)
{
	static const struct mqtx_allocator hook = { .alloc = q_alloc, .free = q_free };

	Q.max = max_bytes;
	mqtx_set_allocator(&hook);
}

struct account *quota_get(uid_t uid)
{
	struct account *a;

	pthread_mutex_lock(&Q.lock);
	for (a = Q.list; a && a->uid != uid; a = a->next)
		;
	if (!a && (a = calloc(1, sizeof(*a)))) {
		a->uid = uid;
		a->next = Q.list;
		Q.list = a;
	}
	pthread_mutex_unlock(&Q.lock);
	return a;
}

int quota_connect(struct account *a, unsigned max, unsigned *open)
{
	int rc = 0;

	pthread_mutex_lock(&Q.lock);
	if (max && a->conns >= max)
		rc = -1;
	else
		a->conns++;
	*open = a->conns;
	pthread_mutex_unlock(&Q.lock);
	return rc;
}

void quota_disconnect(struct account *a)
{
	pthread_mutex_lock(&Q.lock);
	a->conns--;
	pthread_mutex_unlock(&Q.lock);
}

bool quota_charge(struct account *a)
{
	bool was = refused;

	charge_to = a;
	refused = false;
	return was;
}

size_t quota_bytes(const struct account *a)
{
	return atomic_load(&a->bytes);
}

size_t quota_max(void)
{
	return Q.max;
}
