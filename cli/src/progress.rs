//! A progress bar for reads that take more than about a second: drawn on
//! standard error when it is a terminal, never otherwise.

use std::io::{self, Read};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Counts the bytes read through it into a bar that shows itself once the
/// reading has gone on for a second.
pub(crate) struct Counted<R> {
    inner: R,
    bar: ProgressBar,
    started: Instant,
    shown: std::cell::Cell<bool>,
}

impl<R> Counted<R> {
    pub(crate) fn new(inner: R, total: u64) -> Counted<R> {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Counted {
            inner,
            bar,
            started: Instant::now(),
            shown: std::cell::Cell::new(false),
        }
    }

    /// Counts `n` bytes read by some other reader.
    pub(crate) fn tick(&self, n: u64) {
        self.bar.inc(n);
        if !self.shown.get() && self.started.elapsed() > Duration::from_secs(1) {
            self.shown.set(true);
            // `stderr()` draws nothing when standard error is not a terminal.
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    pub(crate) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.tick(n as u64);
        Ok(n)
    }
}
