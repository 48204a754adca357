//! The IR's enums parse as the text form spells them, and Rust's atomic orders convert.

use std::sync::atomic::Ordering;

use atomir::{
    AddressSpace, AtomicOp, CacheHint, ElemType, MemoryOrder, Scope, ValueType, VectorShape,
};

fn round_trips<T>(all: &[T])
where
    T: std::str::FromStr + std::fmt::Display + PartialEq + std::fmt::Debug,
    T::Err: std::fmt::Debug,
{
    for value in all {
        assert_eq!(&value.to_string().parse::<T>().unwrap(), value);
    }
}

#[test]
fn every_spelling_parses_back() {
    round_trips(AtomicOp::ALL);
    round_trips(ElemType::ALL);
    round_trips(VectorShape::ALL);
    round_trips(MemoryOrder::ALL);
    round_trips(Scope::ALL);
    round_trips(AddressSpace::ALL);
    round_trips(CacheHint::ALL);
    assert_eq!("acq_rel".parse(), Ok(MemoryOrder::AcqRel));
    assert_eq!("bf16x2".parse(), Ok(ElemType::Bf16x2));
}

#[test]
fn an_unknown_spelling_says_what_is_expected() {
    let error = "acqrel".parse::<MemoryOrder>().unwrap_err().to_string();
    assert!(error.contains("`acqrel` is not a MemoryOrder"), "{error}");
    assert!(error.contains("acq_rel, seq_cst"), "{error}");
    assert!("Add".parse::<AtomicOp>().is_err(), "spellings are exact");
}

#[test]
fn value_types_parse_as_the_text_form_writes_them() {
    for (text, ty) in [
        ("pred", ValueType::Pred),
        ("ptr.shared", ValueType::Ptr(AddressSpace::Shared)),
        ("u32", ValueType::scalar(ElemType::U32)),
        ("v4.f32", ValueType::Data(ElemType::F32, VectorShape::V4)),
    ] {
        assert_eq!(text.parse::<ValueType>(), Ok(ty));
        assert_eq!(ty.to_string(), text);
    }
    assert!("ptr".parse::<ValueType>().is_err());
    assert!("v3.f32".parse::<ValueType>().is_err());
}

#[test]
fn rust_orders_convert_without_weakening() {
    for (order, expected) in [
        (Ordering::Relaxed, MemoryOrder::Relaxed),
        (Ordering::Acquire, MemoryOrder::Acquire),
        (Ordering::Release, MemoryOrder::Release),
        (Ordering::AcqRel, MemoryOrder::AcqRel),
        (Ordering::SeqCst, MemoryOrder::SeqCst),
    ] {
        let converted = MemoryOrder::from(order);
        assert_eq!(converted, expected);
        assert_eq!(
            converted.to_string(),
            format!("{order:?}")
                .to_lowercase()
                .replace("acqrel", "acq_rel")
                .replace("seqcst", "seq_cst")
        );
    }
}
