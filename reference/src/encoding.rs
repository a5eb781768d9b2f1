//! Strict base64url and the protocol's identifier formats (decisions D9, D13).
//!
//! base64url is `URL_SAFE_NO_PAD` with the crate's strict defaults (no padding, no `+`/`/`,
//! no whitespace, zero trailing bits) plus exact lengths, because a 44-character string
//! decodes to 33 bytes without complaint (research §4). Id predicates are plain byte checks.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// Characters of a principal id (32 bytes).
pub const PRINCIPAL_LEN: usize = 43;
/// Characters of an encoded Ed25519 signature (64 bytes).
pub const SIGNATURE_LEN: usize = 86;

/// A string is not strict base64url of the expected length.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodingError {
    /// Not strict base64url (alphabet, padding, trailing bits, length mod 4).
    #[error("not strict base64url")]
    NotBase64Url,
    /// Decodes, but to the wrong number of bytes / wrong text length.
    #[error("expected {expected} characters, got {actual}")]
    WrongLength {
        /// Expected text length.
        expected: usize,
        /// Actual text length.
        actual: usize,
    },
}

/// base64url without padding.
pub fn b64u_encode(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Strict base64url decoding (rejects padding, `+`, `/`, whitespace, non-zero trailing bits).
pub fn b64u_decode(text: &str) -> Result<Vec<u8>, EncodingError> {
    if crate::faults::on("base64url.node-buffer") {
        // The mistake: padding, the standard alphabet, stray characters and trailing bits
        // accepted (Node's `Buffer.from(text, "base64url")`, which never fails).
        return Ok(crate::faults::node_base64(text));
    }
    if crate::faults::on("base64url.lenient") {
        // The mistake: padding and the standard alphabet accepted, trailing bits ignored.
        let text = text
            .trim_end_matches('=')
            .replace('+', "-")
            .replace('/', "_");
        return base64::engine::GeneralPurpose::new(
            &base64::alphabet::URL_SAFE,
            base64::engine::GeneralPurposeConfig::new()
                .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent)
                .with_decode_allow_trailing_bits(true),
        )
        .decode(text)
        .map_err(|_| EncodingError::NotBase64Url);
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(text)
        .map_err(|_| EncodingError::NotBase64Url)?;
    // Belt and braces: the canonical encoding of the result must be the input itself.
    if URL_SAFE_NO_PAD.encode(&bytes) != text {
        return Err(EncodingError::NotBase64Url);
    }
    Ok(bytes)
}

fn decode_fixed<const N: usize>(text: &str, chars: usize) -> Result<[u8; N], EncodingError> {
    // Node's decoder goes with a length checked on the decoded bytes only.
    if text.len() != chars && crate::faults::off("base64url.node-buffer") {
        return Err(EncodingError::WrongLength {
            expected: chars,
            actual: text.len(),
        });
    }
    let bytes = b64u_decode(text)?;
    <[u8; N]>::try_from(bytes.as_slice()).map_err(|_| EncodingError::WrongLength {
        expected: chars,
        actual: text.len(),
    })
}

/// Decodes a principal id: exactly 43 characters of strict base64url (32 bytes).
pub fn decode_principal(text: &str) -> Result<[u8; 32], EncodingError> {
    decode_fixed::<32>(text, PRINCIPAL_LEN)
}

/// Decodes a signature: exactly 86 characters of strict base64url (64 bytes).
pub fn decode_signature(text: &str) -> Result<[u8; 64], EncodingError> {
    decode_fixed::<64>(text, SIGNATURE_LEN)
}

/// True if `text` is a valid principal id.
pub fn is_principal_id(text: &str) -> bool {
    decode_principal(text).is_ok()
}

fn is_prefixed_hex12(text: &str, prefix: &str) -> bool {
    match text.strip_prefix(prefix) {
        Some(rest) => {
            rest.len() == 12
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        }
        None => false,
    }
}

/// `ct_` followed by 12 lowercase hex digits.
pub fn is_contract_id(text: &str) -> bool {
    is_prefixed_hex12(text, "ct_")
}

/// `del_` followed by 12 lowercase hex digits.
pub fn is_delegation_id(text: &str) -> bool {
    is_prefixed_hex12(text, "del_")
}

/// `att_` followed by 12 lowercase hex digits.
pub fn is_attestation_id(text: &str) -> bool {
    is_prefixed_hex12(text, "att_")
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "A6EHv_POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg";

    #[test]
    fn malleated_forms_are_rejected() {
        assert!(decode_principal(KEY).is_ok());
        for bad in [
            format!("{KEY}="),
            KEY.replace("Mbg", "Mbh"),
            KEY.replace('_', "/"),
            format!("{KEY}\n"),
            KEY[..42].to_string(),
            format!("{KEY}A"),
            format!("{}.", &KEY[..42]),
        ] {
            assert!(decode_principal(&bad).is_err(), "{bad:?}");
        }
        assert!(b64u_decode("AA==").is_err());
        assert!(b64u_decode("AB").is_err());
        assert_eq!(b64u_decode(""), Ok(vec![]));
    }

    #[test]
    fn id_formats() {
        assert!(is_contract_id("ct_a1b2c3d4e5f6"));
        assert!(!is_contract_id("ct_A1B2C3D4E5F6"));
        assert!(!is_contract_id("ct_a1b2c3d4e5f"));
        assert!(is_delegation_id("del_000000000000"));
        assert!(!is_delegation_id("del_0000000000000"));
        assert!(is_attestation_id("att_ffffffffffff"));
        assert!(!is_attestation_id("att_fffffffffffg"));
    }
}
