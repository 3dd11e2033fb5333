//! Progress events from inside the library to whoever shows progress: the stage of long work
//! (converting a bundle, pulling one) and one-line notices (a registry or HTTPS retry). The CLI
//! subscribes while it draws a progress line; with no subscriber an event costs one lock and no
//! formatting. Events may come from any thread (catalogs load on worker threads), so a
//! subscriber must not write through `std::io::stderr()`, whose lock `main` holds for the whole
//! run.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<'a> {
    /// A stage of work starts (replaces the progress line's message).
    Stage(&'a str),
    /// A line worth showing above the progress line (a retry).
    Notice(&'a str),
}

type Sink = Arc<dyn Fn(Event<'_>) + Send + Sync>;

static SINKS: Mutex<Vec<(u64, Sink)>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(0);

/// A subscriber's registration; dropping it unsubscribes.
#[must_use = "dropping the subscription unsubscribes at once"]
pub struct Subscription(u64);

impl Drop for Subscription {
    fn drop(&mut self) {
        if let Ok(mut sinks) = SINKS.lock() {
            sinks.retain(|(id, _)| *id != self.0);
        }
    }
}

/// Receive every event until the subscription is dropped.
pub fn subscribe(sink: impl Fn(Event<'_>) + Send + Sync + 'static) -> Subscription {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut sinks) = SINKS.lock() {
        sinks.push((id, Arc::new(sink)));
    }
    Subscription(id)
}

fn emit(notice: bool, message: impl FnOnce() -> String) {
    // The sinks are called outside the lock, so a sink may itself subscribe or emit.
    let sinks: Vec<Sink> = match SINKS.lock() {
        Ok(sinks) if !sinks.is_empty() => sinks.iter().map(|(_, s)| Arc::clone(s)).collect(),
        _ => return,
    };
    let text = message();
    let event = if notice {
        Event::Notice(&text)
    } else {
        Event::Stage(&text)
    };
    for sink in sinks {
        sink(event);
    }
}

/// A stage of work starts; `message` is formatted only when someone listens.
pub fn stage(message: impl FnOnce() -> String) {
    emit(false, message);
}

/// A one-line notice; `message` is formatted only when someone listens.
pub fn notice(message: impl FnOnce() -> String) {
    emit(true, message);
}

/// The notice for a retry: `retrying WHAT in WAIT (attempt N of M): WHY`, where `next` is the
/// attempt about to be made (2 for the first retry) and `total` is 1 + the retries allowed.
pub fn retrying(what: &str, wait: Duration, next: u32, total: u32, why: &str) -> String {
    let why = why.lines().next().unwrap_or_default();
    let why = match why.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &why[..i]),
        None => why.to_string(),
    };
    format!(
        "retrying {what} in {} (attempt {next} of {total}): {why}",
        duration(wait)
    )
}

/// A wait as people read it: `250ms`, `2s`, `1.5s`.
pub fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subscriber_hears_events_until_it_unsubscribes() {
        let heard = Arc::new(Mutex::new(Vec::new()));
        let h = Arc::clone(&heard);
        let sub = subscribe(move |e| {
            let text = match e {
                Event::Stage(m) => format!("stage {m}"),
                Event::Notice(m) => format!("notice {m}"),
            };
            // Other tests emit concurrently: keep only this test's events.
            if text.contains("unsubscribe-test") {
                h.lock().unwrap().push(text);
            }
        });
        stage(|| "unsubscribe-test a".into());
        // Emitted from another thread, as a worker thread would.
        std::thread::spawn(|| notice(|| "unsubscribe-test b".into()))
            .join()
            .unwrap();
        drop(sub);
        stage(|| "unsubscribe-test c".into());
        assert_eq!(
            *heard.lock().unwrap(),
            ["stage unsubscribe-test a", "notice unsubscribe-test b"]
        );
    }

    #[test]
    fn retry_notices_read_as_people_write_them() {
        assert_eq!(
            retrying(
                "https://example.com/catalog.json",
                Duration::from_secs(2),
                2,
                4,
                "HTTP status 503 Service Unavailable"
            ),
            "retrying https://example.com/catalog.json in 2s (attempt 2 of 4): HTTP status 503 Service Unavailable"
        );
        assert_eq!(duration(Duration::from_millis(250)), "250ms");
        assert_eq!(duration(Duration::from_millis(1500)), "1.5s");
        let long = "x".repeat(300) + "\nsecond line";
        let text = retrying("r", Duration::ZERO, 2, 2, &long);
        assert!(text.ends_with(&format!("{}…", "x".repeat(120))), "{text}");
    }
}
