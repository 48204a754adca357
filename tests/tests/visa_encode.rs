//! The SVM_ATOMIC encoder, byte for byte against the layout of the seed and the reference notes.

use atomir_visa::encode::{
    op_byte, ExecSize, Pred, PredControl, RawOperand, SvmAtomic, SvmOp, Width,
};

#[test]
fn exec_size_byte() {
    assert_eq!(ExecSize::new(8, 5, false).unwrap().byte(), 0x43);
    assert_eq!(ExecSize::new(8, 1, true).unwrap().byte(), 0x83);
    assert_eq!(ExecSize::new(1, 1, false).unwrap().byte(), 0x00);
    assert_eq!(ExecSize::new(2, 8, true).unwrap().byte(), 0xF1);
    assert_eq!(ExecSize::new(4, 3, false).unwrap().byte(), 0x22);
    assert!(ExecSize::new(16, 1, false).is_err());
    assert!(ExecSize::new(8, 9, false).is_err());
    let mut text = String::new();
    ExecSize::new(8, 5, true).unwrap().write_text(&mut text);
    assert_eq!(text, "(M5_NM, 8)");
}

#[test]
fn predicate_word() {
    let not_p1 = Pred {
        id: 1,
        control: PredControl::Normal,
        inverse: true,
    };
    assert_eq!(not_p1.encode().unwrap(), 0x8001);
    assert_eq!(Pred::NONE.encode().unwrap(), 0);
    assert_eq!(
        Pred {
            id: 3,
            control: PredControl::Any,
            inverse: false
        }
        .encode()
        .unwrap(),
        0x2003
    );
    assert_eq!(
        Pred {
            id: 3,
            control: PredControl::All,
            inverse: true
        }
        .encode()
        .unwrap(),
        0xC003
    );
    assert!(Pred {
        id: 4096,
        control: PredControl::Normal,
        inverse: false
    }
    .encode()
    .is_err());
}

#[test]
fn op_byte_width_bits() {
    assert_eq!(op_byte(SvmOp::Cmpxchg, Width::W64), 0x47);
    assert_eq!(op_byte(SvmOp::Add, Width::W16), 0x20);
    assert_eq!(op_byte(SvmOp::Imax, Width::W32), 0x0C);
    assert_eq!(op_byte(SvmOp::Fcmpwr, Width::W32), 0x12);
    assert_eq!(op_byte(SvmOp::Imin, Width::W64), 0x4B);
}

#[test]
fn whole_instruction_in_binary_operand_order() {
    // (!P1) svm_atomic.cmpxchg.64 (M5, 8) addrs.0 old.8 newv.0 cmpv.0 with addrs, newv, cmpv,
    // old the 1st..4th declared variables: binary order is addr, src0, src1, dst.
    let inst = SvmAtomic {
        exec: ExecSize::new(8, 5, false).unwrap(),
        pred: Pred {
            id: 1,
            control: PredControl::Normal,
            inverse: true,
        },
        op: SvmOp::Cmpxchg,
        width: Width::W64,
        addresses: RawOperand::declared(0, 0),
        src0: RawOperand::declared(1, 0),
        src1: RawOperand::declared(2, 0),
        dst: RawOperand::declared(3, 8),
    };
    let mut bytes = Vec::new();
    inst.encode(&mut bytes).unwrap();
    #[rustfmt::skip]
    let expected = [
        0x4E, 0x05, 0x43, 0x01, 0x80, 0x47,
        32, 0, 0, 0, 0, 0,
        33, 0, 0, 0, 0, 0,
        34, 0, 0, 0, 0, 0,
        35, 0, 0, 0, 8, 0,
    ];
    assert_eq!(bytes, expected);
}

#[test]
fn null_operand_rules() {
    let base = SvmAtomic {
        exec: ExecSize::new(8, 1, true).unwrap(),
        pred: Pred::NONE,
        op: SvmOp::Inc,
        width: Width::W16,
        addresses: RawOperand::declared(0, 0),
        src0: RawOperand::NULL,
        src1: RawOperand::NULL,
        dst: RawOperand::NULL,
    };
    let mut bytes = Vec::new();
    base.encode(&mut bytes).unwrap();
    assert_eq!(bytes[..6], [0x4E, 0x05, 0x83, 0x00, 0x00, 0x22]);
    assert_eq!(bytes[12..], [0; 18]);
    // inc with a src0, cmpxchg with a %null src1, add with a src1: refused.
    let with_src0 = SvmAtomic {
        src0: RawOperand::declared(1, 0),
        ..base
    };
    assert!(with_src0.encode(&mut Vec::new()).is_err());
    let cas_null = SvmAtomic {
        op: SvmOp::Cmpxchg,
        src0: RawOperand::declared(1, 0),
        ..base
    };
    assert!(cas_null.encode(&mut Vec::new()).is_err());
    let add_src1 = SvmAtomic {
        op: SvmOp::Add,
        src0: RawOperand::declared(1, 0),
        src1: RawOperand::declared(2, 0),
        ..base
    };
    assert!(add_src1.encode(&mut Vec::new()).is_err());
}
