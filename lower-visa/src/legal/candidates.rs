//! The targets a refusal's smallest target is searched among.

use crate::target::{Platform, VisaTarget};

/// The platforms a refusal's smallest target is searched among, oldest first
/// ([`Platform::ALL`]), each with its default messages.
pub(crate) fn candidates() -> Vec<VisaTarget> {
    Platform::ALL.into_iter().map(VisaTarget::new).collect()
}
