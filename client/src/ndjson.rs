//! A bounded NDJSON line reader for the streams the agent reads from its server (the event
//! stream): lines are cut by `tokio-util`'s [`AnyDelimiterCodec`] with a maximum length,
//! [`MAX_LINE_BYTES`], so a hostile server that sends one endless line costs the agent at most
//! that much memory and gets a clear error ([`LineError::TooLong`]), not an ever-growing buffer.
//!
//! After an error the reader ends (the caller reconnects, as after the stream ends). A last
//! line without its newline (a stream cut mid-line) is dropped, not parsed.

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use std::pin::Pin;
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, Decoder, FramedRead};
use tokio_util::io::StreamReader;

/// The longest line read (1 MiB, without its newline): far above any event the server sends
/// (a challenge or a game's start, a few KiB), and the most one stream makes the agent hold.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Why no line was read.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// A line longer than the limit: the sender is broken or hostile.
    #[error("a line longer than {0} bytes")]
    TooLong(usize),
    /// The stream failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// [`AnyDelimiterCodec`] on `\n`, dropping what is left at the end of the stream.
struct Codec(AnyDelimiterCodec);

impl Decoder for Codec {
    type Item = Bytes;
    type Error = AnyDelimiterCodecError;

    fn decode(&mut self, buf: &mut bytes::BytesMut) -> Result<Option<Bytes>, Self::Error> {
        self.0.decode(buf)
    }

    fn decode_eof(&mut self, buf: &mut bytes::BytesMut) -> Result<Option<Bytes>, Self::Error> {
        // A line cut off by the end of the stream is not a line.
        self.0.decode(buf)
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = std::io::Result<Bytes>> + Send>>;

/// The lines of a byte stream, each at most `max` bytes.
pub struct Lines {
    inner: Option<FramedRead<StreamReader<ByteStream, Bytes>, Codec>>,
    max: usize,
}

impl Lines {
    /// The lines of `body`, each at most [`MAX_LINE_BYTES`].
    pub fn new<E>(body: impl Stream<Item = Result<Bytes, E>> + Send + 'static) -> Lines
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        Lines::with_max(body, MAX_LINE_BYTES)
    }

    /// The lines of `body`, each at most `max` bytes.
    pub fn with_max<E>(
        body: impl Stream<Item = Result<Bytes, E>> + Send + 'static,
        max: usize,
    ) -> Lines
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let body: ByteStream = Box::pin(body.map(|r| r.map_err(std::io::Error::other)));
        let codec = Codec(AnyDelimiterCodec::new_with_max_length(b"\n".to_vec(), Vec::new(), max));
        Lines { inner: Some(FramedRead::new(StreamReader::new(body), codec)), max }
    }

    /// The next line, without its newline; `None` at the end of the stream and after an error.
    pub async fn next(&mut self) -> Option<Result<Bytes, LineError>> {
        let got = self.inner.as_mut()?.next().await;
        match got {
            Some(Ok(line)) => Some(Ok(line)),
            None => {
                self.inner = None;
                None
            }
            Some(Err(e)) => {
                self.inner = None;
                Some(Err(match e {
                    AnyDelimiterCodecError::MaxChunkLengthExceeded => LineError::TooLong(self.max),
                    AnyDelimiterCodecError::Io(e) => LineError::Io(e),
                }))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::stream;
    use std::time::Duration;

    fn lines_of(chunks: Vec<&'static [u8]>, max: usize) -> Lines {
        Lines::with_max(
            stream::iter(
                chunks.into_iter().map(|c| Ok::<_, std::io::Error>(Bytes::from_static(c))),
            ),
            max,
        )
    }

    #[tokio::test]
    async fn lines_are_cut_at_newlines_across_chunks_and_a_cut_off_last_line_is_dropped() {
        let mut l = lines_of(vec![b"{\"a\":", b"1}\n\n{\"b\"", b":2}\n{\"cut"], 64);
        assert_eq!(l.next().await.unwrap().unwrap(), Bytes::from_static(b"{\"a\":1}"));
        assert_eq!(l.next().await.unwrap().unwrap(), Bytes::new());
        assert_eq!(l.next().await.unwrap().unwrap(), Bytes::from_static(b"{\"b\":2}"));
        assert!(l.next().await.is_none(), "the cut-off line is not a line");
    }

    #[tokio::test]
    async fn an_endless_line_from_a_hostile_server_is_an_error_not_unbounded_memory() {
        // A server that sends one line for ever: an unbounded buffer would grow until the
        // agent runs out of memory and never answer; the bounded reader refuses it once it
        // passes the limit.
        let endless =
            stream::repeat_with(|| Ok::<_, std::io::Error>(Bytes::from(vec![b'x'; 4096])));
        let mut l = Lines::new(endless);
        let got = tokio::time::timeout(Duration::from_secs(20), l.next())
            .await
            .expect("an error, not an endless read");
        assert!(matches!(got, Some(Err(LineError::TooLong(MAX_LINE_BYTES)))), "{got:?}");
        assert!(got.unwrap().unwrap_err().to_string().contains("longer than 1048576 bytes"));
        assert!(l.next().await.is_none(), "the reader ends after an error");
        // A line at the limit is read; one byte over is not.
        let mut l = lines_of(vec![b"12345\n", b"123456\n"], 5);
        assert_eq!(l.next().await.unwrap().unwrap(), Bytes::from_static(b"12345"));
        assert!(matches!(l.next().await, Some(Err(LineError::TooLong(5)))));
    }
}
