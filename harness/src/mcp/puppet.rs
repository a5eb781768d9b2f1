//! The harness side of the mock upstream's puppet mode (`mock-upstream --puppet SOCKET`,
//! `spec/mcp-proxy.md` §4): a Unix socket the harness listens on; the puppet connects, and
//! every JSON message the harness writes there is written by the puppet to its stdout and
//! acknowledged (`ok`) once flushed.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The harness side of the puppet's Unix socket.
#[derive(Debug)]
pub struct Puppet {
    listener: UnixListener,
    path: PathBuf,
    conn: Option<(UnixStream, BufReader<UnixStream>)>,
}

impl Puppet {
    /// The socket path (the puppet's `--puppet` argument).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Listens on `dir/puppet.sock`.
    pub fn bind(dir: &Path) -> Result<Self, String> {
        let path = dir.join("puppet.sock");
        let listener = UnixListener::bind(&path).map_err(|e| {
            format!(
                "harness: cannot listen on {} ({e}); a shorter TMPDIR helps",
                path.display()
            )
        })?;
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("harness: {e}"))?;
        Ok(Puppet {
            listener,
            path,
            conn: None,
        })
    }

    /// The connected puppet (accepted on first use, within `deadline`).
    fn conn(
        &mut self,
        deadline: Instant,
    ) -> Result<&mut (UnixStream, BufReader<UnixStream>), String> {
        if self.conn.is_none() {
            let stream = loop {
                match self.listener.accept() {
                    Ok((s, _)) => break s,
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        if Instant::now() >= deadline {
                            return Err("the proxy never started its upstream (the puppet mock did not connect)".into());
                        }
                        thread::sleep(Duration::from_millis(5));
                    }
                    Err(e) => return Err(format!("harness: accepting the puppet failed: {e}")),
                }
            };
            let setup = |s: &UnixStream| {
                s.set_nonblocking(false)?;
                s.set_read_timeout(Some(Duration::from_millis(100)))
            };
            setup(&stream).map_err(|e| format!("harness: {e}"))?;
            let reader = BufReader::new(stream.try_clone().map_err(|e| format!("harness: {e}"))?);
            self.conn = Some((stream, reader));
        }
        self.conn
            .as_mut()
            .ok_or_else(|| "harness: no puppet".to_owned())
    }

    /// Makes the upstream write `msg`; returns once the puppet has written and flushed it.
    pub fn write(&mut self, msg: &Value, deadline: Instant) -> Result<(), String> {
        let (stream, reader) = self.conn(deadline)?;
        let mut line = serde_json::to_vec(msg).unwrap_or_default();
        line.push(b'\n');
        stream
            .write_all(&line)
            .and_then(|()| stream.flush())
            .map_err(|e| format!("the upstream (puppet) is gone: {e}"))?;
        let mut ack = String::new();
        loop {
            match reader.read_line(&mut ack) {
                Ok(0) => return Err("the upstream (puppet) exited before writing a message".into()),
                Ok(_) if ack.ends_with('\n') => break,
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    if Instant::now() >= deadline {
                        return Err("the upstream (puppet) did not acknowledge a message before the deadline".into());
                    }
                }
                Err(e) => return Err(format!("the upstream (puppet) is gone: {e}")),
            }
        }
        match ack.trim_end() {
            "ok" => Ok(()),
            other => Err(format!("harness: the puppet refused a message: {other}")),
        }
    }
}

impl Drop for Puppet {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}
