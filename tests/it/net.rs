//! Loopback servers for the HTTPS tests: a CA made for the test, a small rustls HTTPS server
//! whose answers each test scripts, and a CONNECT proxy. Everything listens on 127.0.0.1 only,
//! serves a bounded number of connections, and stops when dropped.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// Connections a server or proxy accepts at most before it stops by itself.
const MAX_CONNECTIONS: usize = 32;

/// A CA and a server certificate for 127.0.0.1 and localhost signed by it.
pub struct Tls {
    /// The CA certificate, PEM.
    pub ca_pem: String,
    config: Arc<rustls::ServerConfig>,
}

/// A fresh CA and server certificate.
pub fn tls() -> Tls {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "po-manifests test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(leaf.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
        )
        .unwrap();
    Tls {
        ca_pem: ca_cert.pem(),
        config: Arc::new(config),
    }
}

/// What the server answers to one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with this body (gzip-encoded when the client accepts it and `gzip` is set).
    Body { body: Vec<u8>, gzip: bool },
    /// An error status with a short body.
    Status(u16),
    /// An error status with this body.
    StatusBody { code: u16, body: Vec<u8> },
    /// 401 with this `WWW-Authenticate` challenge.
    Challenge(String),
    /// Send headers announcing `declared` bytes, then only `body`, then close.
    Truncated { body: Vec<u8>, declared: usize },
    /// Accept the request and send nothing for a while (at most 3 s).
    Stall,
    /// 200 with these extra header lines (each ending in `\r\n`) and this body as is.
    Raw { headers: String, body: Vec<u8> },
    /// 200 announcing `declared` bytes (`Content-Length`), then nothing for 3 s.
    Announce { declared: u64 },
    /// 200 without a length, then JSON-looking bytes until the client hangs up (at most
    /// [`ENDLESS_LIMIT`] bytes).
    Endless,
    /// 302 to this location.
    Redirect(String),
    /// 200 without a length, then one byte every 100 ms until the client hangs up (at most
    /// 30 s).
    Drip,
}

/// The most an [`Reply::Endless`] body sends before the server gives up.
pub const ENDLESS_LIMIT: u64 = 1024 * 1024 * 1024;

/// A running HTTPS server.
pub struct Server {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Requests answered (handshakes that failed are not counted).
    pub hits: Arc<AtomicUsize>,
    /// Paths requested, in order.
    paths: Arc<Mutex<Vec<String>>>,
    /// Request heads (request line and headers), in order.
    heads: Arc<Mutex<Vec<String>>>,
    /// Body bytes sent, all requests together.
    sent: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl Server {
    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }
    /// How many requests were answered.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
    /// Paths requested, in order.
    pub fn paths(&self) -> Vec<String> {
        self.paths.lock().unwrap().clone()
    }
    /// Request heads received, in order.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
    /// Body bytes sent so far, all requests together.
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::SeqCst)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Start an HTTPS server; `reply(n, path)` answers the n-th request (from 0).
pub fn serve<F>(tls: &Tls, reply: F) -> Server
where
    F: Fn(usize, &str) -> Reply + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let paths = Arc::new(Mutex::new(Vec::new()));
    let heads = Arc::new(Mutex::new(Vec::new()));
    let sent = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let config = tls.config.clone();
    let reply = Arc::new(reply);
    {
        let (hits, paths, heads, sent, stop) = (
            hits.clone(),
            paths.clone(),
            heads.clone(),
            sent.clone(),
            stop.clone(),
        );
        thread::spawn(move || {
            for stream in listener.incoming().take(MAX_CONNECTIONS) {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (config, reply, hits, paths, heads, sent) = (
                    config.clone(),
                    reply.clone(),
                    hits.clone(),
                    paths.clone(),
                    heads.clone(),
                    sent.clone(),
                );
                thread::spawn(move || {
                    let seen = Seen {
                        hits: &hits,
                        paths: &paths,
                        heads: &heads,
                        sent: &sent,
                    };
                    let _ = handle(stream, config, &*reply, &seen);
                });
            }
        });
    }
    Server {
        port,
        hits,
        paths,
        heads,
        sent,
        stop,
    }
}

/// What a server records of the requests it answers.
#[derive(Clone, Copy)]
struct Seen<'a> {
    hits: &'a AtomicUsize,
    paths: &'a Mutex<Vec<String>>,
    heads: &'a Mutex<Vec<String>>,
    sent: &'a AtomicU64,
}

fn handle(
    stream: TcpStream,
    config: Arc<rustls::ServerConfig>,
    reply: &(dyn Fn(usize, &str) -> Reply + Send + Sync),
    seen: &Seen<'_>,
) -> std::io::Result<()> {
    let Seen {
        hits,
        paths,
        heads,
        sent,
    } = *seen;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    let conn = rustls::ServerConnection::new(config).map_err(std::io::Error::other)?;
    let mut tls = rustls::StreamOwned::new(conn, stream);
    let head = read_head(&mut tls)?;
    let request_line = head.lines().next().unwrap_or("").to_string();
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let accepts_gzip = head.to_ascii_lowercase().contains("accept-encoding: gzip");
    paths.lock().unwrap().push(path.clone());
    heads.lock().unwrap().push(head.clone());
    let n = hits.fetch_add(1, Ordering::SeqCst);
    match reply(n, &path) {
        Reply::Body { body, gzip } => {
            let (body, encoding) = if gzip && accepts_gzip {
                let mut enc =
                    flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                enc.write_all(&body)?;
                (enc.finish()?, "Content-Encoding: gzip\r\n")
            } else {
                (body, "")
            };
            write!(
                tls,
                "HTTP/1.1 200 OK\r\nContent-Type: application/jsonl\r\n{encoding}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            tls.write_all(&body)?;
            sent.fetch_add(body.len() as u64, Ordering::SeqCst);
        }
        Reply::Raw { headers, body } => {
            write!(
                tls,
                "HTTP/1.1 200 OK\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            tls.write_all(&body)?;
            sent.fetch_add(body.len() as u64, Ordering::SeqCst);
        }
        Reply::Announce { declared } => {
            write!(
                tls,
                "HTTP/1.1 200 OK\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
            )?;
            tls.flush()?;
            thread::sleep(Duration::from_secs(3));
        }
        Reply::Endless => {
            write!(tls, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")?;
            let chunk = b"{\"schema\":\"olm.package\",\"name\":\"endless\"}\n".repeat(1024);
            while sent.load(Ordering::SeqCst) < ENDLESS_LIMIT {
                // The client hanging up ends the loop with a write error.
                tls.write_all(&chunk)?;
                sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
            }
        }
        Reply::Redirect(location) => {
            write!(
                tls,
                "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )?;
        }
        Reply::Drip => {
            write!(tls, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{{")?;
            tls.flush()?;
            for _ in 0..300 {
                thread::sleep(Duration::from_millis(100));
                tls.write_all(b" ")?;
                tls.flush()?;
                sent.fetch_add(1, Ordering::SeqCst);
            }
        }
        Reply::Status(code) => {
            let body = format!("status {code}\n");
            write!(
                tls,
                "HTTP/1.1 {code} Scripted\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )?;
        }
        Reply::StatusBody { code, body } => {
            write!(
                tls,
                "HTTP/1.1 {code} Scripted\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            tls.write_all(&body)?;
        }
        Reply::Challenge(challenge) => {
            write!(
                tls,
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: {challenge}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )?;
        }
        Reply::Truncated { body, declared } => {
            write!(
                tls,
                "HTTP/1.1 200 OK\r\nContent-Length: {declared}\r\nConnection: close\r\n\r\n"
            )?;
            tls.write_all(&body)?;
            tls.flush()?;
        }
        Reply::Stall => {
            tls.flush()?;
            thread::sleep(Duration::from_secs(3));
        }
    }
    tls.flush()?;
    tls.conn.send_close_notify();
    let _ = tls.flush();
    let _ = tls.sock.shutdown(Shutdown::Both);
    Ok(())
}

fn read_head(r: &mut impl Read) -> std::io::Result<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && head.len() < 16 * 1024 {
        if r.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        head.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// A plain-HTTP listener on loopback that records the head of every request it gets and
/// answers 404: what a client must never send credentials to.
pub struct PlainServer {
    /// Its port on 127.0.0.1.
    pub port: u16,
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl PlainServer {
    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
    /// The request heads received, in order.
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }
}

impl Drop for PlainServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Start a [`PlainServer`].
pub fn serve_plain() -> PlainServer {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (heads, stop) = (heads.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming().take(MAX_CONNECTIONS) {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                if let Ok(head) = read_head(&mut stream) {
                    heads.lock().unwrap().push(head);
                }
                let _ = stream.write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
    }
    PlainServer { port, heads, stop }
}

/// A CONNECT proxy on loopback that only tunnels to 127.0.0.1.
pub struct Proxy {
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// CONNECT requests seen, as `host:port`.
    pub tunnels: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
    /// Tunnels opened.
    pub fn tunnels(&self) -> Vec<String> {
        self.tunnels.lock().unwrap().clone()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// Start a CONNECT proxy.
pub fn proxy() -> Proxy {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let tunnels = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    {
        let (tunnels, stop) = (tunnels.clone(), stop.clone());
        thread::spawn(move || {
            for stream in listener.incoming().take(MAX_CONNECTIONS) {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let tunnels = tunnels.clone();
                thread::spawn(move || {
                    let _ = tunnel(stream, &tunnels);
                });
            }
        });
    }
    Proxy {
        port,
        tunnels,
        stop,
    }
}

fn tunnel(mut client: TcpStream, tunnels: &Mutex<Vec<String>>) -> std::io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(5)))?;
    let head = read_head(&mut client)?;
    let target = head
        .strip_prefix("CONNECT ")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or("")
        .to_string();
    tunnels.lock().unwrap().push(target.clone());
    if !target.starts_with("127.0.0.1:") {
        client.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")?;
        return Ok(());
    }
    let upstream = TcpStream::connect(&target)?;
    client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")?;
    upstream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let (mut c2, mut u2) = (client.try_clone()?, upstream.try_clone()?);
    let up = thread::spawn(move || {
        let _ = std::io::copy(&mut c2, &mut u2);
        let _ = u2.shutdown(Shutdown::Write);
    });
    let (mut u3, mut c3) = (upstream, client);
    let _ = std::io::copy(&mut u3, &mut c3);
    let _ = c3.shutdown(Shutdown::Write);
    let _ = up.join();
    Ok(())
}
