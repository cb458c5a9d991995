/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * What the host and the DPA thread share: a block of DPA memory that the
 * thread finds through its local storage. Included by both sides; it uses a
 * host header's type, as real programs' shared headers do (so the sim's
 * device compile must see the host headers, as dpacc's does).
 */
#ifndef THREAD_FINISH_SHARED_H_
#define THREAD_FINISH_SHARED_H_

#include <stdint.h>

#include <doca_sync_event.h>

struct thread_state {
	doca_dpa_dev_sync_event_t ran;	/* the thread adds 1 each time it runs */
	uint64_t runs;			/* activations seen */
	uint64_t after_finish;		/* must stay 0: doca_dpa_dev_thread_finish() never returns */
};

#endif /* THREAD_FINISH_SHARED_H_ */
