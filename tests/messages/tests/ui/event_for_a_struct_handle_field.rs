// A handle field of a generated struct holds a `Dev`, which keeps its object alive.
use doca::dpa::{CompletionEvent, Dev, Device, Dpa, DpaBox, DpaBuffer, Export};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let scratch = DpaBuffer::<u64>::new(&dpa, 8)?;
    let done = CompletionEvent::new(&dpa, Export::ToDpa)?;
    // `struct sound_thread_state { uint64_t activations; uint64_t *scratch;
    //  doca_dpa_dev_sync_event_t done; }`
    let _state = DpaBox::new(
        &dpa,
        &doca_tests::sound_thread_state {
            activations: 0,
            scratch: Dev::new(&scratch)?,
            done: &done,
        },
    )?;
    Ok(())
}
