/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * DPA Comms: two DPA threads exchange messages over two DOCA Comch message
 * queues whose consumers and producers are on one DPA context. The host sets
 * the queues up (checking the lifecycle errors on the way), starts the
 * exchange with a kernel, waits for the ping thread's event and prints what
 * each thread received.
 */
#include <string.h>

#include <doca_comch_consumer.h>
#include <doca_comch_msgq.h>
#include <doca_comch_producer.h>
#include <doca_ctx.h>
#include <doca_sync_event.h>

#include "check.h"
#include "shared.h"

extern struct doca_dpa_app *comch_msgq_app;
doca_dpa_func_t ping_thread;
doca_dpa_func_t pong_thread;
doca_dpa_func_t start_exchange;

/* A DPA thread running `func` on `arg`, started, bound to a started consumer completion context. */
struct receiver {
	struct doca_dpa_thread *thread;
	struct doca_comch_consumer_completion *cc;
	doca_dpa_dev_comch_consumer_completion_t cc_handle;
};

static struct receiver receiver(struct doca_dpa *dpa, doca_dpa_func_t *func, doca_dpa_dev_uintptr_t arg)
{
	struct receiver r;
	uint32_t n = 0;

	CHECK(doca_dpa_thread_create(dpa, &r.thread));
	CHECK(doca_dpa_thread_set_func_arg(r.thread, func, arg));
	CHECK(doca_dpa_thread_start(r.thread));
	CHECK(doca_comch_consumer_completion_create(&r.cc));
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_consumer_completion_start(r.cc));
	CHECK(doca_comch_consumer_completion_set_dpa_thread(r.cc, r.thread));
	CHECK(doca_comch_consumer_completion_set_max_num_recv(r.cc, 3));
	CHECK(doca_comch_consumer_completion_get_max_num_recv(r.cc, &n));
	ASSERT(n == 4);
	CHECK(doca_comch_consumer_completion_set_imm_data_len(r.cc, sizeof(uint32_t)));
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_consumer_completion_get_dpa_handle(r.cc, &r.cc_handle));
	CHECK(doca_comch_consumer_completion_start(r.cc));
	CHECK(doca_comch_consumer_completion_get_dpa_handle(r.cc, &r.cc_handle));
	return r;
}

/* A started message queue from one thread's producer to another's consumer. */
struct queue {
	struct doca_comch_msgq *msgq;
	struct doca_comch_consumer *consumer;
	struct doca_comch_producer *producer;
	struct doca_dpa_completion *sends;
};

static struct queue queue(struct doca_dev *dev, struct doca_dpa *dpa, struct receiver *to, struct side *from,
			  struct side *at)
{
	struct queue q;
	struct doca_comch_consumer *extra = NULL;
	uint32_t id = 0;

	CHECK(doca_comch_msgq_create(dev, &q.msgq));
	CHECK(doca_comch_msgq_set_max_num_consumers(q.msgq, 1));
	CHECK(doca_comch_msgq_set_max_num_producers(q.msgq, 1));
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_msgq_consumer_create(q.msgq, &q.consumer));
	/* Both sides on the DPA: the only queues the sim models. */
	EXPECT(DOCA_ERROR_NOT_SUPPORTED, doca_comch_msgq_start(q.msgq));
	CHECK(doca_comch_msgq_set_dpa_consumer(q.msgq, dpa));
	CHECK(doca_comch_msgq_set_dpa_producer(q.msgq, dpa));
	CHECK(doca_comch_msgq_start(q.msgq));
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_msgq_set_max_num_consumers(q.msgq, 2));

	CHECK(doca_comch_msgq_consumer_create(q.msgq, &q.consumer));
	EXPECT(DOCA_ERROR_NO_MEMORY, doca_comch_msgq_consumer_create(q.msgq, &extra));
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_consumer_set_completion(q.consumer, to->cc, 7));
	CHECK(doca_ctx_set_datapath_on_dpa(doca_comch_consumer_as_ctx(q.consumer), dpa));
	EXPECT(DOCA_ERROR_INVALID_VALUE, doca_comch_consumer_set_imm_data_len(q.consumer, 33));
	CHECK(doca_comch_consumer_set_imm_data_len(q.consumer, sizeof(uint32_t)));
	CHECK(doca_comch_consumer_set_dev_max_num_recv(q.consumer, RECEIVES));
	CHECK(doca_comch_consumer_set_completion(q.consumer, to->cc, 7));
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_consumer_get_dpa_handle(q.consumer, &at->consumer));
	CHECK(doca_ctx_start(doca_comch_consumer_as_ctx(q.consumer)));
	CHECK(doca_comch_consumer_get_dpa_handle(q.consumer, &at->consumer));
	CHECK(doca_comch_consumer_get_id(q.consumer, &id));
	at->consumer_comp = to->cc_handle;
	from->peer_consumer_id = id;

	CHECK(doca_dpa_completion_create(dpa, 16, &q.sends));
	CHECK(doca_dpa_completion_start(q.sends));
	CHECK(doca_comch_msgq_producer_create(q.msgq, &q.producer));
	CHECK(doca_ctx_set_datapath_on_dpa(doca_comch_producer_as_ctx(q.producer), dpa));
	CHECK(doca_comch_producer_set_dev_max_num_send(q.producer, 4));
	EXPECT(DOCA_ERROR_BAD_STATE, doca_ctx_start(doca_comch_producer_as_ctx(q.producer)));
	CHECK(doca_comch_producer_dpa_completion_attach(q.producer, q.sends));
	CHECK(doca_ctx_start(doca_comch_producer_as_ctx(q.producer)));
	CHECK(doca_comch_producer_get_dpa_handle(q.producer, &from->producer));
	/* A queue with a consumer or producer does not stop. */
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_msgq_stop(q.msgq));
	return q;
}

static void destroy_queue(struct queue *q)
{
	CHECK(doca_ctx_stop(doca_comch_producer_as_ctx(q->producer)));
	CHECK(doca_comch_producer_destroy(q->producer));
	CHECK(doca_ctx_stop(doca_comch_consumer_as_ctx(q->consumer)));
	CHECK(doca_comch_consumer_destroy(q->consumer));
	CHECK(doca_comch_msgq_stop(q->msgq));
	CHECK(doca_comch_msgq_destroy(q->msgq));
	CHECK(doca_dpa_completion_destroy(q->sends));
}

int main(void)
{
	struct doca_dev *dev = open_dpa_device();
	struct doca_dpa *dpa = start_dpa(dev, comch_msgq_app);
	struct doca_sync_event *done = dpa_to_cpu_event(dev, dpa);
	struct doca_sync_event *started = dpa_to_cpu_event(dev, dpa);
	struct side ping, pong;
	doca_dpa_dev_uintptr_t ping_mem = 0, pong_mem = 0;
	uint32_t max_imm = 0;

	memset(&ping, 0, sizeof(ping));
	memset(&pong, 0, sizeof(pong));
	CHECK(doca_comch_consumer_cap_get_max_imm_data_len(doca_dev_as_devinfo(dev), &max_imm));
	printf("max immediate data: %u bytes\n", (unsigned int)max_imm);
	CHECK(doca_dpa_mem_alloc(dpa, sizeof(ping), &ping_mem));
	CHECK(doca_dpa_mem_alloc(dpa, sizeof(pong), &pong_mem));
	CHECK(doca_sync_event_get_dpa_handle(done, dpa, &ping.done));

	struct receiver a = receiver(dpa, &ping_thread, ping_mem);
	struct receiver b = receiver(dpa, &pong_thread, pong_mem);
	struct queue ab = queue(dev, dpa, &b, &ping, &pong);
	struct queue ba = queue(dev, dpa, &a, &pong, &ping);
	/* A completion context with consumers does not stop. */
	EXPECT(DOCA_ERROR_BAD_STATE, doca_comch_consumer_completion_stop(a.cc));
	CHECK(doca_dpa_h2d_memcpy(dpa, ping_mem, &ping, sizeof(ping)));
	CHECK(doca_dpa_h2d_memcpy(dpa, pong_mem, &pong, sizeof(pong)));
	CHECK(doca_dpa_thread_run(a.thread));
	CHECK(doca_dpa_thread_run(b.thread));

	CHECK(doca_dpa_kernel_launch_update_set(dpa, NULL, 0, started, 1, 1, &start_exchange, ping_mem, pong_mem));
	CHECK(doca_sync_event_wait_gt(done, 0, UINT64_MAX));
	CHECK(doca_dpa_d2h_memcpy(dpa, &ping, ping_mem, sizeof(ping)));
	CHECK(doca_dpa_d2h_memcpy(dpa, &pong, pong_mem, sizeof(pong)));
	printf("ping received %u messages, pong %u\n", (unsigned int)ping.seen, (unsigned int)pong.seen);
	CHECK(doca_dpa_peek_at_last_error(dpa));

	destroy_queue(&ab);
	destroy_queue(&ba);
	struct receiver *rs[] = {&a, &b};
	for (int i = 0; i < 2; i++) {
		CHECK(doca_comch_consumer_completion_stop(rs[i]->cc));
		CHECK(doca_comch_consumer_completion_destroy(rs[i]->cc));
		CHECK(doca_dpa_thread_stop(rs[i]->thread));
		CHECK(doca_dpa_thread_destroy(rs[i]->thread));
	}
	CHECK(doca_dpa_mem_free(dpa, ping_mem));
	CHECK(doca_dpa_mem_free(dpa, pong_mem));
	CHECK(doca_sync_event_stop(started));
	CHECK(doca_sync_event_destroy(started));
	CHECK(doca_sync_event_stop(done));
	CHECK(doca_sync_event_destroy(done));
	CHECK(doca_dpa_stop(dpa));
	CHECK(doca_dpa_destroy(dpa));
	CHECK(doca_dev_close(dev));
	printf("done\n");
	return 0;
}
