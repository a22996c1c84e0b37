//! Distribution over TLS, interoperable with Erlang's `-proto_dist inet_tls`: the same
//! EPMD registration, handshake and frames, inside a TLS session (rustls) that both sides
//! authenticate with certificates signed by a CA they trust.

use std::path::Path;
use std::sync::Arc;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::{self, server::WebPkiClientVerifier, RootCertStore};

/// The TLS settings of a node: its certificate chain and key, and the CA that signs its
/// peers' certificates. Both directions verify the peer (a node's client certificate is
/// required), as `inet_tls` with `verify_peer` and `fail_if_no_peer_cert` does.
///
/// ```no_run
/// use std::path::Path;
/// use mote_dist::node::{NodeOptions, TlsConfig};
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let tls = TlsConfig::from_pem_files(Path::new("node.pem"), Path::new("node.key"), Path::new("ca.pem"))?;
/// let node = NodeOptions::new("mote@127.0.0.1").cookie("c").tls(tls).start().await?;
/// # let _ = node; Ok(()) }
/// ```
#[derive(Clone)]
pub struct TlsConfig {
    pub(crate) acceptor: tokio_rustls::TlsAcceptor,
    pub(crate) connector: tokio_rustls::TlsConnector,
}

impl std::fmt::Debug for TlsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsConfig").finish_non_exhaustive()
    }
}

/// Why TLS settings could not be made.
///
/// ```
/// use std::path::Path;
/// let e = mote_dist::node::TlsConfig::from_pem_files(Path::new("/nonexistent"), Path::new("/k"), Path::new("/ca"));
/// assert!(e.is_err());
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsError {
    /// A PEM file could not be read or holds nothing usable.
    #[error("reading {path}: {message}")]
    Pem {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// rustls refused the settings (a key that does not match the certificate, ...).
    #[error("TLS settings: {0}")]
    Rustls(String),
}

impl TlsConfig {
    /// Settings from PEM files: the node's certificate chain, its private key, and the
    /// CA certificates its peers' certificates must chain to.
    ///
    /// ```no_run
    /// use std::path::Path;
    /// let tls = mote_dist::node::TlsConfig::from_pem_files(
    ///     Path::new("node.pem"), Path::new("node.key"), Path::new("ca.pem"))?;
    /// # let _ = tls; Ok::<(), mote_dist::node::TlsError>(())
    /// ```
    pub fn from_pem_files(cert: &Path, key: &Path, ca: &Path) -> Result<TlsConfig, TlsError> {
        let pem = |path: &Path, message: String| TlsError::Pem {
            path: path.display().to_string(),
            message,
        };
        let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
            .map_err(|e| pem(cert, e.to_string()))?
            .collect::<Result<_, _>>()
            .map_err(|e| pem(cert, e.to_string()))?;
        if chain.is_empty() {
            return Err(pem(cert, "no certificate".into()));
        }
        let key_der = PrivateKeyDer::from_pem_file(key).map_err(|e| pem(key, e.to_string()))?;
        let mut roots = RootCertStore::empty();
        for c in CertificateDer::pem_file_iter(ca).map_err(|e| pem(ca, e.to_string()))? {
            let c = c.map_err(|e| pem(ca, e.to_string()))?;
            roots.add(c).map_err(|e| pem(ca, e.to_string()))?;
        }
        Self::new(chain, key_der, roots)
    }

    /// Settings from parsed certificates (see [`from_pem_files`](Self::from_pem_files)).
    ///
    /// ```no_run
    /// # fn demo(chain: Vec<rustls_pki_types::CertificateDer<'static>>, key: rustls_pki_types::PrivateKeyDer<'static>,
    /// #         roots: tokio_rustls::rustls::RootCertStore) -> Result<(), mote_dist::node::TlsError> {
    /// let tls = mote_dist::node::TlsConfig::new(chain, key, roots)?;
    /// # let _ = tls; Ok(()) }
    /// ```
    pub fn new(
        chain: Vec<CertificateDer<'static>>,
        key: PrivateKeyDer<'static>,
        roots: RootCertStore,
    ) -> Result<TlsConfig, TlsError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let roots = Arc::new(roots);
        let err = |e: &dyn std::fmt::Display| TlsError::Rustls(e.to_string());
        let verifier = WebPkiClientVerifier::builder_with_provider(roots.clone(), provider.clone())
            .build()
            .map_err(|e| err(&e))?;
        let server = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| err(&e))?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain.clone(), key.clone_key())
            .map_err(|e| err(&e))?;
        let client = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| err(&e))?
            .with_root_certificates(roots)
            .with_client_auth_cert(chain, key)
            .map_err(|e| err(&e))?;
        Ok(TlsConfig {
            acceptor: tokio_rustls::TlsAcceptor::from(Arc::new(server)),
            connector: tokio_rustls::TlsConnector::from(Arc::new(client)),
        })
    }
}
