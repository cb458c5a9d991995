/*
 * SPDX-License-Identifier: MIT OR Apache-2.0
 *
 * doca-sim: the device-side calls that can end the running kernel instance.
 *
 * A DPA thread that reschedules or finishes, a kernel whose context turned
 * fatal, and a kernel that handed a device function a bad handle or address
 * do not return to their caller. The sim runs each instance under a
 * sigsetjmp (csrc/trap.c) and returns to it with siglongjmp; only C frames
 * (the kernel's and these functions') are skipped, never the sim's Rust ones:
 * the Rust implementation (doca_sim_impl_*) returns first, then the wrapper
 * here ends the instance if it found a device fault.
 */
#include <stdarg.h>
#include <stdint.h>
#include <sched.h>
#include <stdio.h>

#include <doca_dpa_dev.h>
#include <doca_dpa_dev_buf.h>
#include <doca_dpa_dev_comch_msgq.h>
#include <doca_dpa_dev_rdma.h>
#include <doca_dpa_dev_sync_event.h>
#include <doca_sim_dev.h>

#include "trap.h"

int doca_sim_dev_should_abort(void);
void doca_sim_dev_log_line(unsigned int level, const char *line);
int doca_sim_dev_sync_event_wait_gt(uint64_t handle, uint64_t value, uint64_t mask);
void doca_sim_dev_raise_fault(const char *reason);

void doca_sim_impl_thread_notify(uint64_t handle);
void doca_sim_impl_sync_event_get(uint64_t handle, uint64_t *value);
void doca_sim_impl_sync_event_update_add(uint64_t handle, uint64_t value);
void doca_sim_impl_sync_event_update_set(uint64_t handle, uint64_t value);
int doca_sim_impl_get_completion(uint64_t handle, uint64_t *element);
void doca_sim_impl_completion_ack(uint64_t handle, uint64_t n);
void doca_sim_impl_completion_request_notification(uint64_t handle);
int doca_sim_impl_completion_post(uint64_t handle, uint32_t type, uint32_t user_data, uint32_t immediate);
void doca_sim_impl_hash_table_add(uint64_t handle, uint32_t key, uint64_t value);
void doca_sim_impl_hash_table_remove(uint64_t handle, uint32_t key);
int doca_sim_impl_hash_table_find(uint64_t handle, uint32_t key, uint64_t *value);
void doca_sim_impl_device_set(uint64_t handle);
uint64_t doca_sim_impl_mmap_get_external_ptr(uint32_t handle, uint64_t addr);

/*
 * Neither returns into the kernel: the jump leaves it for the sim's run of
 * the activation. Reached outside any run of device code (a call from host
 * code, or a kernel bound to another copy of the sim than the one running
 * it), there is nowhere to go back to, and carrying on into the code after
 * the call would run it again: that is a host crash with a message.
 */
void doca_dpa_dev_thread_reschedule(void)
{
	doca_sim_trap_end(DOCA_SIM_ENDED_RESCHEDULED);
	doca_sim_trap_outside_device_code("doca_dpa_dev_thread_reschedule");
}

void doca_dpa_dev_thread_finish(void)
{
	doca_sim_trap_end(DOCA_SIM_ENDED_FINISHED);
	doca_sim_trap_outside_device_code("doca_dpa_dev_thread_finish");
}

void doca_dpa_dev_yield(void)
{
	if (doca_sim_dev_should_abort())
		doca_sim_trap_end(DOCA_SIM_ENDED_ABORTED);
	sched_yield();
}

void doca_dpa_dev_sync_event_wait_gt(doca_dpa_dev_sync_event_t handle, uint64_t value, uint64_t mask)
{
	if (doca_sim_dev_sync_event_wait_gt(handle, value, mask))
		doca_sim_trap_end(DOCA_SIM_ENDED_ABORTED);
}

void doca_dpa_dev_log(doca_dpa_dev_log_level_t log_level, const char *format, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, format);
	vsnprintf(line, sizeof(line), format, ap);
	va_end(ap);
	doca_sim_dev_log_line((unsigned int)log_level, line);
	/* A safe point: a kernel that logs in a loop stops here once its context is fatal. */
	if (doca_sim_dev_should_abort())
		doca_sim_trap_end(DOCA_SIM_ENDED_ABORTED);
}

void doca_sim_dev_fault(const char *reason)
{
	doca_sim_dev_raise_fault(reason);
	doca_sim_trap_end(DOCA_SIM_ENDED_ABORTED);
}

void doca_dpa_dev_thread_notify(doca_dpa_dev_notification_completion_t handle)
{
	doca_sim_impl_thread_notify(handle);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_sync_event_get(doca_dpa_dev_sync_event_t handle, uint64_t *value)
{
	doca_sim_impl_sync_event_get(handle, value);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_sync_event_update_add(doca_dpa_dev_sync_event_t handle, uint64_t value)
{
	doca_sim_impl_sync_event_update_add(handle, value);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_sync_event_update_set(doca_dpa_dev_sync_event_t handle, uint64_t value)
{
	doca_sim_impl_sync_event_update_set(handle, value);
	doca_sim_trap_end_if_requested();
}

int doca_dpa_dev_get_completion(doca_dpa_dev_completion_t handle, doca_dpa_dev_completion_element_t *element)
{
	int got = doca_sim_impl_get_completion(handle, element);

	doca_sim_trap_end_if_requested();
	return got;
}

void doca_dpa_dev_completion_ack(doca_dpa_dev_completion_t handle, uint64_t num_comp)
{
	doca_sim_impl_completion_ack(handle, num_comp);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_completion_request_notification(doca_dpa_dev_completion_t handle)
{
	doca_sim_impl_completion_request_notification(handle);
	doca_sim_trap_end_if_requested();
}

int doca_sim_dev_completion_post(doca_dpa_dev_completion_t handle, uint32_t type, uint32_t user_data,
				 uint32_t immediate)
{
	int err = doca_sim_impl_completion_post(handle, type, user_data, immediate);

	doca_sim_trap_end_if_requested();
	return err;
}

void doca_dpa_dev_hash_table_add(doca_dpa_dev_hash_table_t handle, uint32_t key, uint64_t value)
{
	doca_sim_impl_hash_table_add(handle, key, value);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_hash_table_remove(doca_dpa_dev_hash_table_t handle, uint32_t key)
{
	doca_sim_impl_hash_table_remove(handle, key);
	doca_sim_trap_end_if_requested();
}

int doca_dpa_dev_hash_table_find(doca_dpa_dev_hash_table_t handle, uint32_t key, uint64_t *value)
{
	int found = doca_sim_impl_hash_table_find(handle, key, value);

	doca_sim_trap_end_if_requested();
	return found;
}

int doca_sim_impl_rdmi_send(uint64_t poster, uint64_t connection, const void *data, uint32_t len, uint32_t user_data);

int doca_sim_dev_rdmi_send(uint64_t poster, uint64_t connection, const void *data, uint32_t len, uint32_t user_data)
{
	int err = doca_sim_impl_rdmi_send(poster, connection, data, len, user_data);

	doca_sim_trap_end_if_requested();
	return err;
}

/*
 * DPA async ops (src/dpa/async_ops.rs): each call hands its arguments to the
 * model and ends the instance if the model found a device fault. The buffer
 * form reads both buffers in kernel mode (a bad buffer address is the
 * kernel's own trap) and copies the source buffer's length into the
 * destination buffer, which must be as long.
 */
void doca_sim_impl_async_memcpy(uint64_t async_ops, uint32_t dst_mmap, uint64_t dst_addr, uint64_t room,
				uint32_t src_mmap, uint64_t src_addr, uint64_t length, uint32_t flags);
void doca_sim_impl_async_wait(uint64_t async_ops, uint64_t event, uint64_t value, int not_equal);

void doca_dpa_dev_sync_event_post_wait_gt(doca_dpa_dev_async_ops_t async_ops_handle,
					  doca_dpa_dev_sync_event_t wait_se_handle, uint64_t value)
{
	doca_sim_impl_async_wait(async_ops_handle, wait_se_handle, value, 0);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_sync_event_post_wait_ne(doca_dpa_dev_async_ops_t async_ops_handle,
					  doca_dpa_dev_sync_event_t wait_se_handle, uint64_t value)
{
	doca_sim_impl_async_wait(async_ops_handle, wait_se_handle, value, 1);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_post_buf_memcpy(doca_dpa_dev_async_ops_t async_ops_handle,
				  doca_dpa_dev_buf_t dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle,
				  uint32_t flags)
{
	doca_sim_impl_async_memcpy(async_ops_handle, doca_dpa_dev_buf_get_mmap(dst_buf_handle),
				   doca_dpa_dev_buf_get_addr(dst_buf_handle), doca_dpa_dev_buf_get_len(dst_buf_handle),
				   doca_dpa_dev_buf_get_mmap(src_buf_handle), doca_dpa_dev_buf_get_addr(src_buf_handle),
				   doca_dpa_dev_buf_get_len(src_buf_handle), flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_post_memcpy(doca_dpa_dev_async_ops_t async_ops_handle, doca_dpa_dev_mmap_t dst_mmap_handle,
			      uint64_t dst_addr, doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr,
			      size_t length, uint32_t flags)
{
	doca_sim_impl_async_memcpy(async_ops_handle, dst_mmap_handle, dst_addr, length, src_mmap_handle, src_addr,
				   length, flags);
	doca_sim_trap_end_if_requested();
}

/*
 * DPA RDMA (src/rdma.rs): each call hands its arguments to the model and ends
 * the instance if the model found a device fault. The buffer forms read the
 * buffer in kernel mode (a bad buffer address is the kernel's own trap) and
 * post its range.
 */
void doca_sim_impl_rdma_send(uint64_t rdma, uint32_t connection_id, uint32_t mmap, uint64_t addr, uint64_t length,
			     int has_immediate, uint32_t immediate, uint32_t flags);
void doca_sim_impl_rdma_receive(uint64_t rdma, uint32_t mmap, uint64_t addr, uint64_t length);
void doca_sim_impl_rdma_receive_ack(uint64_t rdma, uint32_t num_acked);
void doca_sim_impl_rdma_write(uint64_t rdma, uint32_t connection_id, uint32_t dst_mmap, uint64_t dst_addr,
			      uint32_t src_mmap, uint64_t src_addr, uint64_t length, int has_immediate,
			      uint32_t immediate, uint32_t flags);
void doca_sim_impl_rdma_read(uint64_t rdma, uint32_t connection_id, uint32_t dst_mmap, uint64_t dst_addr,
			     uint32_t src_mmap, uint64_t src_addr, uint64_t length, uint32_t flags);
void doca_sim_impl_rdma_atomic_add(uint64_t rdma, uint32_t connection_id, uint32_t dst_mmap, uint64_t dst_addr,
				   uint64_t value, uint32_t flags);
void doca_sim_impl_rdma_signal(uint64_t rdma, uint32_t connection_id, uint64_t remote_event, uint64_t count, int add);

void doca_dpa_dev_rdma_post_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				 doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
				 doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
				 uint32_t flags)
{
	doca_sim_impl_rdma_read(rdma, connection_id, dst_mmap_handle, dst_addr, src_mmap_handle, src_addr, length,
				flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_buf_read(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				     doca_dpa_dev_buf_t dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle,
				     uint32_t flags)
{
	doca_dpa_dev_rdma_post_read(rdma, connection_id, doca_dpa_dev_buf_get_mmap(dst_buf_handle),
				    doca_dpa_dev_buf_get_addr(dst_buf_handle), doca_dpa_dev_buf_get_mmap(src_buf_handle),
				    doca_dpa_dev_buf_get_addr(src_buf_handle), doca_dpa_dev_buf_get_len(src_buf_handle),
				    flags);
}

void doca_dpa_dev_rdma_post_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				  doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
				  doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
				  uint32_t flags)
{
	doca_sim_impl_rdma_write(rdma, connection_id, dst_mmap_handle, dst_addr, src_mmap_handle, src_addr, length, 0,
				 0, flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_buf_write(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				      doca_dpa_dev_buf_t dst_buf_handle, doca_dpa_dev_buf_t src_buf_handle,
				      uint32_t flags)
{
	doca_dpa_dev_rdma_post_write(rdma, connection_id, doca_dpa_dev_buf_get_mmap(dst_buf_handle),
				     doca_dpa_dev_buf_get_addr(dst_buf_handle),
				     doca_dpa_dev_buf_get_mmap(src_buf_handle), doca_dpa_dev_buf_get_addr(src_buf_handle),
				     doca_dpa_dev_buf_get_len(src_buf_handle), flags);
}

void doca_dpa_dev_rdma_post_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				      doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
				      doca_dpa_dev_mmap_t src_mmap_handle, uint64_t src_addr, size_t length,
				      uint32_t immediate, uint32_t flags)
{
	doca_sim_impl_rdma_write(rdma, connection_id, dst_mmap_handle, dst_addr, src_mmap_handle, src_addr, length, 1,
				 immediate, flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_buf_write_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
					  doca_dpa_dev_buf_t dst_buf_handle,
					  doca_dpa_dev_buf_t src_buf_handle, uint32_t immediate,
					  uint32_t flags)
{
	doca_dpa_dev_rdma_post_write_imm(rdma, connection_id, doca_dpa_dev_buf_get_mmap(dst_buf_handle),
					 doca_dpa_dev_buf_get_addr(dst_buf_handle),
					 doca_dpa_dev_buf_get_mmap(src_buf_handle),
					 doca_dpa_dev_buf_get_addr(src_buf_handle),
					 doca_dpa_dev_buf_get_len(src_buf_handle), immediate, flags);
}

void doca_dpa_dev_rdma_post_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				 doca_dpa_dev_mmap_t mmap_handle, uint64_t addr, size_t length,
				 uint32_t flags)
{
	doca_sim_impl_rdma_send(rdma, connection_id, mmap_handle, addr, length, 0, 0, flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_buf_send(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				     doca_dpa_dev_buf_t send_buf_handle, uint32_t flags)
{
	doca_dpa_dev_rdma_post_send(rdma, connection_id, doca_dpa_dev_buf_get_mmap(send_buf_handle),
				    doca_dpa_dev_buf_get_addr(send_buf_handle), doca_dpa_dev_buf_get_len(send_buf_handle),
				    flags);
}

void doca_dpa_dev_rdma_post_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				     doca_dpa_dev_mmap_t mmap_handle, uint64_t addr, size_t length,
				     uint32_t immediate, uint32_t flags)
{
	doca_sim_impl_rdma_send(rdma, connection_id, mmap_handle, addr, length, 1, immediate, flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_buf_send_imm(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
					 doca_dpa_dev_buf_t send_buf_handle, uint32_t immediate,
					 uint32_t flags)
{
	doca_dpa_dev_rdma_post_send_imm(rdma, connection_id, doca_dpa_dev_buf_get_mmap(send_buf_handle),
					doca_dpa_dev_buf_get_addr(send_buf_handle),
					doca_dpa_dev_buf_get_len(send_buf_handle), immediate, flags);
}

void doca_dpa_dev_rdma_post_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_mmap_t mmap_handle, uint64_t addr,
				    size_t length)
{
	doca_sim_impl_rdma_receive(rdma, mmap_handle, addr, length);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_buf_receive(doca_dpa_dev_rdma_t rdma, doca_dpa_dev_buf_t receive_buf_handle)
{
	doca_dpa_dev_rdma_post_receive(rdma, doca_dpa_dev_buf_get_mmap(receive_buf_handle),
				       doca_dpa_dev_buf_get_addr(receive_buf_handle),
				       doca_dpa_dev_buf_get_len(receive_buf_handle));
}

void doca_dpa_dev_rdma_receive_ack(doca_dpa_dev_rdma_t rdma, uint32_t num_acked)
{
	doca_sim_impl_rdma_receive_ack(rdma, num_acked);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_atomic_fetch_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
					     doca_dpa_dev_mmap_t dst_mmap_handle, uint64_t dst_addr,
					     uint64_t value, uint32_t flags)
{
	doca_sim_impl_rdma_atomic_add(rdma, connection_id, dst_mmap_handle, dst_addr, value, flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_post_buf_atomic_fetch_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
						 doca_dpa_dev_buf_t dst_buf_handle, uint64_t value,
						 uint32_t flags)
{
	doca_dpa_dev_rdma_post_atomic_fetch_add(rdma, connection_id, doca_dpa_dev_buf_get_mmap(dst_buf_handle),
						doca_dpa_dev_buf_get_addr(dst_buf_handle), value, flags);
}

void doca_dpa_dev_rdma_signal_set(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				  doca_dpa_dev_sync_event_remote_net_t remote_sync_event, uint64_t count)
{
	doca_sim_impl_rdma_signal(rdma, connection_id, remote_sync_event, count, 0);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_rdma_signal_add(doca_dpa_dev_rdma_t rdma, uint32_t connection_id,
				  doca_dpa_dev_sync_event_remote_net_t remote_sync_event, uint64_t count)
{
	doca_sim_impl_rdma_signal(rdma, connection_id, remote_sync_event, count, 1);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_device_set(doca_dpa_dev_t dpa_handle)
{
	doca_sim_impl_device_set(dpa_handle);
	doca_sim_trap_end_if_requested();
}

doca_dpa_dev_uintptr_t doca_dpa_dev_mmap_get_external_ptr(doca_dpa_dev_mmap_t mmap_handle, uint64_t addr)
{
	uint64_t ptr = doca_sim_impl_mmap_get_external_ptr(mmap_handle, addr);

	doca_sim_trap_end_if_requested();
	return ptr;
}

/* Reads the buffer in kernel mode: a bad buffer address is the kernel's own trap. */
doca_dpa_dev_uintptr_t doca_dpa_dev_buf_get_external_ptr(doca_dpa_dev_buf_t buf)
{
	return doca_dpa_dev_mmap_get_external_ptr(doca_dpa_dev_buf_get_mmap(buf), doca_dpa_dev_buf_get_addr(buf));
}

/*
 * DPA Comms message queues (src/comch.rs): each call hands its arguments to
 * the model and ends the instance if the model found a device fault.
 */
void doca_sim_impl_comch_consumer_ack(uint64_t consumer, uint32_t num_msg);
int doca_sim_impl_comch_get_completion(uint64_t consumer_comp, uint64_t *element);
uint64_t doca_sim_impl_comch_completion_imm(uint64_t element, uint32_t *imm_length);
uint32_t doca_sim_impl_comch_completion_producer_id(uint64_t element);
void doca_sim_impl_comch_completion_ack(uint64_t consumer_comp, uint64_t num_comp);
void doca_sim_impl_comch_request_notification(uint64_t consumer_comp);
int doca_sim_impl_comch_is_consumer_empty(uint64_t producer, uint32_t consumer_id);
void doca_sim_impl_comch_send(uint64_t producer, uint32_t consumer_id, const uint8_t *imm, uint32_t imm_length,
			      uint32_t flags);
void doca_sim_impl_comch_dma_copy(uint64_t producer, uint32_t consumer_id, uint32_t dst_mmap, uint64_t dst_addr,
				  uint32_t src_mmap, uint64_t src_addr, uint64_t length, const uint8_t *imm,
				  uint32_t imm_length, uint32_t flags);

void doca_dpa_dev_comch_consumer_ack(doca_dpa_dev_comch_consumer_t consumer, uint32_t num_msg)
{
	doca_sim_impl_comch_consumer_ack(consumer, num_msg);
	doca_sim_trap_end_if_requested();
}

int doca_dpa_dev_comch_consumer_get_completion(doca_dpa_dev_comch_consumer_completion_t consumer_comp_handle,
					       doca_dpa_dev_comch_consumer_completion_element_t *comp_element)
{
	int got = doca_sim_impl_comch_get_completion(consumer_comp_handle, comp_element);

	doca_sim_trap_end_if_requested();
	return got;
}

const uint8_t *doca_dpa_dev_comch_consumer_get_completion_imm(doca_dpa_dev_comch_consumer_completion_element_t comp_element,
							      uint32_t *imm_length)
{
	uint64_t imm = doca_sim_impl_comch_completion_imm(comp_element, imm_length);

	doca_sim_trap_end_if_requested();
	return (const uint8_t *)(uintptr_t)imm;
}

uint32_t doca_dpa_dev_comch_consumer_get_completion_producer_id(
	doca_dpa_dev_comch_consumer_completion_element_t comp_element)
{
	uint32_t id = doca_sim_impl_comch_completion_producer_id(comp_element);

	doca_sim_trap_end_if_requested();
	return id;
}

void doca_dpa_dev_comch_consumer_completion_ack(doca_dpa_dev_comch_consumer_completion_t consumer_comp_handle,
						uint64_t num_comp)
{
	doca_sim_impl_comch_completion_ack(consumer_comp_handle, num_comp);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_comch_consumer_completion_request_notification(
	doca_dpa_dev_comch_consumer_completion_t consumer_comp_handle)
{
	doca_sim_impl_comch_request_notification(consumer_comp_handle);
	doca_sim_trap_end_if_requested();
}

int doca_dpa_dev_comch_producer_is_consumer_empty(doca_dpa_dev_comch_producer_t producer, uint32_t consumer_id)
{
	int empty = doca_sim_impl_comch_is_consumer_empty(producer, consumer_id);

	doca_sim_trap_end_if_requested();
	return empty;
}

void doca_dpa_dev_comch_producer_post_send_imm_only(doca_dpa_dev_comch_producer_t producer, uint32_t consumer_id,
						    const uint8_t *imm, uint32_t imm_length, uint32_t flags)
{
	doca_sim_impl_comch_send(producer, consumer_id, imm, imm_length, flags);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_comch_producer_dma_copy(doca_dpa_dev_comch_producer_t producer, uint32_t consumer_id,
					  doca_dpa_dev_mmap_t dst_mmap, uint64_t dst_addr, doca_dpa_dev_mmap_t src_mmap,
					  uint64_t src_addr, size_t length, const uint8_t *imm, uint32_t imm_length,
					  uint32_t flags)
{
	doca_sim_impl_comch_dma_copy(producer, consumer_id, dst_mmap, dst_addr, src_mmap, src_addr, length, imm,
				     imm_length, flags);
	doca_sim_trap_end_if_requested();
}

/* ---------------------------------------------------------------- DPA Verbs */

#if DOCA_SIM_DEV_RELEASE >= 302
#include <doca_dpa_dev_verbs.h>

/* In dpa_verbs.rs; work requests are passed by address (the sim reads its
 * own layout of them, probing the kernel's pointers). */
uint32_t doca_sim_impl_verbs_post_send(uint64_t qp, uint64_t send_wr);
uint32_t doca_sim_impl_verbs_post_recv(uint64_t qp, uint64_t recv_wr);
void doca_sim_impl_verbs_commit_send(uint64_t qp);
void doca_sim_impl_verbs_commit_recv(uint64_t qp);
uint32_t doca_sim_impl_verbs_qpn(uint64_t qp);

uint32_t doca_dpa_dev_verbs_qp_post_send_wr(doca_dpa_dev_verbs_qp_t verbs_qp, struct doca_dpa_dev_verbs_send_wr *send_wr)
{
	uint32_t count = doca_sim_impl_verbs_post_send(verbs_qp, (uint64_t)(uintptr_t)send_wr);
	doca_sim_trap_end_if_requested();
	return count;
}

uint32_t doca_dpa_dev_verbs_qp_post_recv_wr(doca_dpa_dev_verbs_qp_t verbs_qp, struct doca_dpa_dev_verbs_recv_wr *recv_wr)
{
	uint32_t count = doca_sim_impl_verbs_post_recv(verbs_qp, (uint64_t)(uintptr_t)recv_wr);
	doca_sim_trap_end_if_requested();
	return count;
}

void doca_dpa_dev_verbs_qp_commit_send(doca_dpa_dev_verbs_qp_t verbs_qp)
{
	doca_sim_impl_verbs_commit_send(verbs_qp);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_verbs_qp_lw_commit_send(doca_dpa_dev_verbs_qp_t verbs_qp)
{
	doca_dpa_dev_verbs_qp_commit_send(verbs_qp);
}

void doca_dpa_dev_verbs_qp_commit_recv(doca_dpa_dev_verbs_qp_t verbs_qp)
{
	doca_sim_impl_verbs_commit_recv(verbs_qp);
	doca_sim_trap_end_if_requested();
}

void doca_dpa_dev_verbs_qp_lw_commit_recv(doca_dpa_dev_verbs_qp_t verbs_qp)
{
	doca_dpa_dev_verbs_qp_commit_recv(verbs_qp);
}

uint32_t doca_dpa_dev_verbs_qp_get_qpn(doca_dpa_dev_verbs_qp_t verbs_qp)
{
	uint32_t qpn = doca_sim_impl_verbs_qpn(verbs_qp);
	doca_sim_trap_end_if_requested();
	return qpn;
}
#endif /* DOCA_SIM_DEV_RELEASE >= 302 */
