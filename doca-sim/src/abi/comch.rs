// bindgen's output (doca_build_support::bindgen_config::generate_reusing_dpa, the
// configuration of doca-regen-bindings) over doca_comch_msgq.h, doca_comch_consumer.h
// and doca_comch_producer.h, concatenated with the repeated forward declarations
// dropped. doca-regen-bindings does not make this file yet; do not edit by hand.
use super::dpa::*;

#[repr(C)]
#[derive(Debug)]
pub struct doca_comch_msgq {
    _unused: [u8; 0],
}
#[repr(C)]
#[derive(Debug)]
pub struct doca_comch_producer {
    _unused: [u8; 0],
}
#[repr(C)]
#[derive(Debug)]
pub struct doca_comch_consumer {
    _unused: [u8; 0],
}
unsafe extern "C" {
    pub fn doca_comch_msgq_create(
        dev: *mut doca_dev,
        msgq: *mut *mut doca_comch_msgq,
    ) -> doca_error_t;
    pub fn doca_comch_msgq_destroy(msgq: *mut doca_comch_msgq) -> doca_error_t;
    pub fn doca_comch_msgq_set_dpa_consumer(
        msgq: *mut doca_comch_msgq,
        dpa: *mut doca_dpa,
    ) -> doca_error_t;
    pub fn doca_comch_msgq_set_max_num_consumers(
        msgq: *mut doca_comch_msgq,
        max_num_consumers: u32,
    ) -> doca_error_t;
    pub fn doca_comch_msgq_set_dpa_producer(
        msgq: *mut doca_comch_msgq,
        dpa: *mut doca_dpa,
    ) -> doca_error_t;
    pub fn doca_comch_msgq_set_max_num_producers(
        msgq: *mut doca_comch_msgq,
        max_num_producers: u32,
    ) -> doca_error_t;
    pub fn doca_comch_msgq_start(msgq: *mut doca_comch_msgq) -> doca_error_t;
    pub fn doca_comch_msgq_stop(msgq: *mut doca_comch_msgq) -> doca_error_t;
    pub fn doca_comch_msgq_consumer_create(
        msgq: *mut doca_comch_msgq,
        consumer: *mut *mut doca_comch_consumer,
    ) -> doca_error_t;
    pub fn doca_comch_msgq_producer_create(
        msgq: *mut doca_comch_msgq,
        producer: *mut *mut doca_comch_producer,
    ) -> doca_error_t;
}

#[repr(C)]
#[derive(Debug)]
pub struct doca_comch_consumer_completion {
    _unused: [u8; 0],
}
pub type doca_dpa_dev_comch_consumer_completion_t = u64;
pub type doca_dpa_dev_comch_consumer_t = u64;
unsafe extern "C" {
    pub fn doca_comch_consumer_destroy(consumer: *mut doca_comch_consumer) -> doca_error_t;
    pub fn doca_comch_consumer_get_id(
        consumer: *const doca_comch_consumer,
        id: *mut u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_cap_get_max_imm_data_len(
        devinfo: *const doca_devinfo,
        max_imm_data_len: *mut u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_get_imm_data_len(
        consumer: *const doca_comch_consumer,
        imm_data_len: *mut u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_set_imm_data_len(
        consumer: *mut doca_comch_consumer,
        imm_data_len: u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_as_ctx(consumer: *mut doca_comch_consumer) -> *mut doca_ctx;
    pub fn doca_comch_consumer_completion_create(
        consumer_comp: *mut *mut doca_comch_consumer_completion,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_set_dpa_thread(
        consumer_comp: *mut doca_comch_consumer_completion,
        dpa_thread: *mut doca_dpa_thread,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_destroy(
        consumer_comp: *mut doca_comch_consumer_completion,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_start(
        consumer_comp: *mut doca_comch_consumer_completion,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_stop(
        consumer_comp: *mut doca_comch_consumer_completion,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_get_dpa_handle(
        consumer_comp: *mut doca_comch_consumer_completion,
        consumer_comp_handle: *mut doca_dpa_dev_comch_consumer_completion_t,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_set_max_num_consumers(
        consumer_comp: *mut doca_comch_consumer_completion,
        max_num_consumers: u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_get_max_num_consumers(
        consumer_comp: *const doca_comch_consumer_completion,
        max_num_consumers: *mut u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_set_max_num_recv(
        consumer_comp: *mut doca_comch_consumer_completion,
        max_num_recv: u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_get_max_num_recv(
        consumer_comp: *const doca_comch_consumer_completion,
        max_num_recv: *mut u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_set_imm_data_len(
        consumer_comp: *mut doca_comch_consumer_completion,
        imm_data_len: u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_completion_get_imm_data_len(
        consumer_comp: *const doca_comch_consumer_completion,
        imm_data_len: *mut u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_set_dev_max_num_recv(
        consumer: *mut doca_comch_consumer,
        dev_num_recv: u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_set_completion(
        consumer: *mut doca_comch_consumer,
        consumer_comp: *mut doca_comch_consumer_completion,
        user_data: u32,
    ) -> doca_error_t;
    pub fn doca_comch_consumer_get_dpa_handle(
        consumer: *mut doca_comch_consumer,
        dpa_consumer: *mut doca_dpa_dev_comch_consumer_t,
    ) -> doca_error_t;
}

pub type doca_dpa_dev_comch_producer_t = u64;
unsafe extern "C" {
    pub fn doca_comch_producer_destroy(producer: *mut doca_comch_producer) -> doca_error_t;
    pub fn doca_comch_producer_get_id(
        producer: *const doca_comch_producer,
        id: *mut u32,
    ) -> doca_error_t;
    pub fn doca_comch_producer_as_ctx(producer: *mut doca_comch_producer) -> *mut doca_ctx;
    pub fn doca_comch_producer_set_dev_max_num_send(
        producer: *mut doca_comch_producer,
        dev_num_send: u32,
    ) -> doca_error_t;
    pub fn doca_comch_producer_dpa_completion_attach(
        producer: *mut doca_comch_producer,
        dpa_comp: *mut doca_dpa_completion,
    ) -> doca_error_t;
    pub fn doca_comch_producer_get_dpa_handle(
        producer: *mut doca_comch_producer,
        dpa_producer: *mut doca_dpa_dev_comch_producer_t,
    ) -> doca_error_t;
}
