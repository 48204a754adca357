//! How a node is carried out ([`Lowering`]), as three orthogonal axes: how one element is done
//! ([`ElementLowering`]), whether the node is done whole or element by element ([`Split`]), and
//! whether a warp's lanes at one address combine their operations ([`WarpCombine`]). The
//! combinations that mean something are the ones [`Lowering::new`] accepts; every other
//! constructor is valid by its type. Reports, the matrix and the Python binding print the flat
//! name ([`Lowering::name`]), one per accepted combination.

use std::fmt;

use crate::types::{AtomicOp, ElemType, TypeClass, VectorShape};

/// How one element of a node (or, for an 8/16-bit element, its aligned 32-bit word) is carried
/// out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementLowering {
    /// The target's own instruction for the element (for a whole vector node, its vector form).
    Native,
    /// A CAS loop on the element's width.
    CasLoop,
    /// An 8/16-bit element's first attempt as a CAS on the element's width and, once that CAS
    /// fails (the location is contended), the masked CAS loop on its aligned 32-bit word
    /// ([`ElementLowering::MaskedCasLoop`]), from a fresh load of the word. Uncontended it is
    /// the element-width loop's one attempt; contended, the word loop, whose failed CAS returns
    /// the whole word it retries with. Every attempt is a CAS with the node's attributes, so
    /// the result is the same as either loop's. A cas is its one element-width CAS.
    CasThenMaskedLoop,
    /// An 8/16-bit element inside its aligned 32-bit word, by a masked 32-bit CAS loop; split,
    /// one loop per word applies the op to every element of its word.
    MaskedCasLoop,
    /// An 8/16-bit and/or/xor (or load) inside its aligned 32-bit word: one widened native op
    /// whose operand leaves the other bits unchanged; or a vector's f16/bf16 add/sub as one
    /// packed f16x2/bf16x2 add per word, each half its own element's operand (the vector fills
    /// its words, so no half belongs to other data).
    MaskedOp,
    /// A 32/64-bit float `min`/`max`/`fminimumnum`/`fmaximumnum` by the integer min/max atomic
    /// of its width on the operand's bits (signed or unsigned by the operand's sign), with a CAS
    /// loop only where the operand is a NaN or memory held the NaN the integer op leaves in
    /// place ([`crate::expand`] proves the conditions; [`Lowering::int_min_max_atomics`] names
    /// the two atomics).
    IntMinMax,
}

impl ElementLowering {
    /// The masked lowering of an 8/16-bit element of `op`: one widened op for the bitwise ops
    /// whose other bits a neutral mask keeps (and/or/xor), a masked CAS loop for the rest.
    pub const fn masked(op: AtomicOp) -> ElementLowering {
        match op {
            AtomicOp::And | AtomicOp::Or | AtomicOp::Xor => ElementLowering::MaskedOp,
            _ => ElementLowering::MaskedCasLoop,
        }
    }

    /// Whether the element is a CAS retry loop (a masked one included).
    pub const fn retries(self) -> bool {
        matches!(
            self,
            ElementLowering::CasLoop
                | ElementLowering::CasThenMaskedLoop
                | ElementLowering::MaskedCasLoop
        )
    }
}

/// Whether a node is carried out whole or as one atomic per element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Split {
    /// The node as one access (a scalar, or a vector by the target's vector form).
    Whole,
    /// A vector node as per-element atomics, or, for masked elements, one access per aligned
    /// 32-bit word (a backend may carry several native elements in one of its vector accesses,
    /// as a vector access still makes each element its own atomic access).
    PerElement,
}

/// Whether the lanes of a warp at one location carry out their operations together. Every
/// combining form is for relaxed scalar nodes on targets with warp vote and shuffle
/// instructions only: the other lanes' operations are carried out by another thread, which a
/// relaxed atomic allows (it orders nothing but the location's own modification order, which
/// the group's consecutive operations respect); the lanes wait for each other with ordering
/// ([`crate::expand::Prim::WarpSync`]) before and after, so each lane's own accesses to the
/// location stay ordered with its operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarpCombine {
    /// Each lane carries out its own operation.
    PerLane,
    /// The lanes with the same address fold their operands, the highest of them carries out the
    /// element's lowering with the fold, and each lane gets the old value of the linearization
    /// in which the group's operations are consecutive, in lane order (the old value the group's
    /// operation replaced, folded with the operands of the lanes below it).
    ///
    /// With a masked CAS loop, a CAS loop on the element's own width, or the element-width CAS
    /// that turns into the masked loop once contended, for relaxed 8/16-bit integer
    /// add/sub/min/max: exact, the fold ([`Lowering::warp_fold`]) is wrapping add or integer
    /// min/max, associative and commutative. With a native RMW, for the exact folds of
    /// [`Lowering::warp_fold`], and for f32 add/sub only where the client opted into
    /// reassociation ([`Lowering::warp_fold_reassociating`],
    /// [`Rewrite::FloatAddReassociated`](crate::Rewrite::FloatAddReassociated)). With
    /// [`ElementLowering::IntMinMax`], for f32/f64 min/max: the lanes fold their operands by the
    /// node's float min/max and the highest runs the integer trick with the fold. Exact: float
    /// min/max (minimumNumber/maximumNumber) is commutative and associative bit for bit, since a
    /// NaN is the other operand's identity and any two NaNs give the canonical NaN whatever
    /// their payloads; so the group's one operation stores what its lanes' operations in lane
    /// order store, and a lane's lane-order old value is the group's old value min/max the fold
    /// of the operands below it, except the lowest lane's, which is the group's old value as it
    /// is (a NaN in memory keeps its payload there). The fold runs as an unsigned integer max
    /// (min) on a key that orders the non-NaN floats as the semantics do (-0 below +0) and maps
    /// each to one key, a NaN operand contributing the fold's identity, which decodes to a NaN:
    /// the fold is the largest (smallest) non-NaN operand, or a NaN where all are NaNs, and the
    /// integer trick sends a NaN to its CAS loop.
    Fold,
    /// A CAS loop on the element (of 32 or 64 bits) or on the aligned 32-bit word of an 8/16-bit
    /// element, carried out once per such location by a warp whose lanes' operations are applied
    /// one after another: in each CAS attempt of the highest lane of the group at a location,
    /// every lane in lane order applies its own operation (rounded as its own atomic would be)
    /// to its own bits of the value the lane below it left, and keeps the element it found as
    /// its old value. Exact for any op, float add included: the results are those of the
    /// group's operations following each other in lane order. Only with
    /// [`ElementLowering::CasLoop`].
    SerialFold,
    /// For a relaxed scalar 8/16-bit integer add/sub/min/max: one masked CAS loop per aligned
    /// 32-bit word, carried out once per word by a warp: the lanes whose elements lie in one
    /// word form a group; the lanes of each address fold their operands as [`WarpCombine::Fold`]
    /// does (same exact fold, [`Lowering::warp_fold`]), and the highest lane of the group
    /// applies every address's fold (at most four for 8-bit elements, two for 16-bit) to its own
    /// bits in each attempt of one loop. Each lane gets the old value of the linearization in
    /// which the group's operations are consecutive, those at one address in lane order. So
    /// lanes at different addresses of one word share one loop (where [`WarpCombine::Fold`]
    /// runs one per address, all retrying on the same word), and the lanes at one address are
    /// folded, not applied one by one ([`WarpCombine::SerialFold`]). Only with
    /// [`ElementLowering::MaskedCasLoop`].
    WordFold,
}

/// How a node is carried out, in the spirit of LLVM's `AtomicExpansionKind`: the element's
/// lowering, the split and the warp combining. Widths and element counts are not repeated here:
/// they follow from the node (its type and shape), which is what [`crate::expand`] builds from.
///
/// `Debug` and `Display` print the flat name ([`Lowering::name`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Lowering {
    element: ElementLowering,
    split: Split,
    warp: WarpCombine,
}

/// A combination of axes that names no lowering (see [`Lowering::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidLowering {
    /// The element's lowering asked for.
    pub element: ElementLowering,
    /// The split asked for.
    pub split: Split,
    /// The warp combining asked for.
    pub warp: WarpCombine,
}

impl fmt::Display for InvalidLowering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.warp {
            _ if self.split == Split::PerElement => "a split node is carried out lane by lane",
            WarpCombine::SerialFold => "a serial fold is a CAS loop",
            WarpCombine::WordFold => "a word fold is a masked CAS loop",
            _ => "a masked op has no warp fold",
        };
        write!(
            f,
            "no lowering is {:?} {:?} {:?}: {why}",
            self.element, self.split, self.warp
        )
    }
}

impl std::error::Error for InvalidLowering {}

impl Default for Lowering {
    fn default() -> Self {
        Lowering::whole(ElementLowering::Native)
    }
}

impl Lowering {
    /// Every lowering, in the order of its flat names.
    pub const ALL: [Lowering; 19] = {
        use ElementLowering::*;
        const fn split(element: ElementLowering) -> Lowering {
            Lowering {
                element,
                split: Split::PerElement,
                warp: WarpCombine::PerLane,
            }
        }
        const fn warp(element: ElementLowering, warp: WarpCombine) -> Lowering {
            Lowering {
                element,
                split: Split::Whole,
                warp,
            }
        }
        [
            Lowering::whole(Native),
            Lowering::whole(CasLoop),
            Lowering::whole(MaskedCasLoop),
            Lowering::whole(MaskedOp),
            Lowering::whole(CasThenMaskedLoop),
            split(Native),
            split(CasLoop),
            split(MaskedCasLoop),
            split(MaskedOp),
            split(CasThenMaskedLoop),
            Lowering::whole(IntMinMax),
            split(IntMinMax),
            warp(MaskedCasLoop, WarpCombine::Fold),
            warp(CasLoop, WarpCombine::Fold),
            warp(CasThenMaskedLoop, WarpCombine::Fold),
            warp(Native, WarpCombine::Fold),
            warp(IntMinMax, WarpCombine::Fold),
            warp(CasLoop, WarpCombine::SerialFold),
            warp(MaskedCasLoop, WarpCombine::WordFold),
        ]
    };

    /// The lowering of these axes, or why they name none: a split node is carried out by each
    /// lane on its own; a serial fold is a CAS loop; a word fold is a masked CAS loop; a masked
    /// op has no warp fold.
    pub const fn new(
        element: ElementLowering,
        split: Split,
        warp: WarpCombine,
    ) -> Result<Lowering, InvalidLowering> {
        let valid = match (split, warp) {
            (_, WarpCombine::PerLane) => true,
            (Split::PerElement, _) => false,
            (Split::Whole, WarpCombine::Fold) => !matches!(element, ElementLowering::MaskedOp),
            (Split::Whole, WarpCombine::SerialFold) => {
                matches!(element, ElementLowering::CasLoop)
            }
            (Split::Whole, WarpCombine::WordFold) => {
                matches!(element, ElementLowering::MaskedCasLoop)
            }
        };
        if valid {
            Ok(Lowering {
                element,
                split,
                warp,
            })
        } else {
            Err(InvalidLowering {
                element,
                split,
                warp,
            })
        }
    }

    /// The whole node by `element`, each lane on its own.
    pub const fn whole(element: ElementLowering) -> Lowering {
        Lowering {
            element,
            split: Split::Whole,
            warp: WarpCombine::PerLane,
        }
    }

    /// This lowering with the warp combining `warp`, where the axes name one ([`Lowering::new`]).
    pub const fn with_warp(self, warp: WarpCombine) -> Result<Lowering, InvalidLowering> {
        Lowering::new(self.element, self.split, warp)
    }

    /// `element` carried out on each element of a node of `shape`: split for a vector (each
    /// lane on its own, as a split node is), whole for a scalar.
    pub const fn per_element(element: ElementLowering, shape: VectorShape) -> Lowering {
        Lowering::whole(element).for_shape(shape)
    }

    /// This lowering for a node of `shape`: split, each lane on its own, for a vector (a warp
    /// combines scalar nodes only); unsplit, the warp combining kept, for a scalar.
    pub const fn for_shape(self, shape: VectorShape) -> Lowering {
        if shape.is_vector() {
            Lowering {
                element: self.element,
                split: Split::PerElement,
                warp: WarpCombine::PerLane,
            }
        } else {
            Lowering {
                split: Split::Whole,
                ..self
            }
        }
    }

    /// How one element is carried out.
    pub const fn element(self) -> ElementLowering {
        self.element
    }

    /// Whether the node is carried out whole or per element.
    pub const fn split(self) -> Split {
        self.split
    }

    /// Whether a warp's lanes at one location combine their operations.
    pub const fn warp(self) -> WarpCombine {
        self.warp
    }

    /// Whether the node is split into per-element atomics.
    pub const fn is_split(self) -> bool {
        matches!(self.split, Split::PerElement)
    }

    /// Whether an element is a CAS retry loop (a masked one included): the lowerings whose
    /// order a target may carry by one fence before the loop and one after it
    /// ([`crate::lower::Access::Loop`]).
    pub const fn retries(self) -> bool {
        self.element.retries()
    }

    /// Whether an element contains a CAS retry loop: a retrying lowering, or
    /// [`ElementLowering::IntMinMax`] (warp-combined or not), whose NaN path is one. Where the
    /// target carries a loop's order by one fence before and one after it
    /// ([`crate::lower::Access::Loop`]), the whole element is bracketed so (its integer atomic
    /// relaxed between the same fences), and no retry runs a fence.
    pub const fn has_retry_loop(self) -> bool {
        self.retries() || matches!(self.element, ElementLowering::IntMinMax)
    }

    /// The flat name of the lowering, as reports, the matrix and the Python binding print it
    /// (`SplitMaskedCasLoop`, `WarpIntMinMax`).
    pub const fn name(self) -> &'static str {
        use ElementLowering::*;
        match (self.split, self.warp, self.element) {
            (Split::Whole, WarpCombine::PerLane, Native) => "Native",
            (Split::Whole, WarpCombine::PerLane, CasLoop) => "CasLoop",
            (Split::Whole, WarpCombine::PerLane, MaskedCasLoop) => "MaskedCasLoop",
            (Split::Whole, WarpCombine::PerLane, MaskedOp) => "MaskedOp",
            (Split::Whole, WarpCombine::PerLane, IntMinMax) => "IntMinMax",
            (Split::Whole, WarpCombine::PerLane, CasThenMaskedLoop) => "CasThenMaskedLoop",
            (Split::PerElement, _, Native) => "SplitNative",
            (Split::PerElement, _, CasLoop) => "SplitCasLoop",
            (Split::PerElement, _, MaskedCasLoop) => "SplitMaskedCasLoop",
            (Split::PerElement, _, MaskedOp) => "SplitMaskedOp",
            (Split::PerElement, _, IntMinMax) => "SplitIntMinMax",
            (Split::PerElement, _, CasThenMaskedLoop) => "SplitCasThenMaskedLoop",
            (Split::Whole, WarpCombine::Fold, Native) => "WarpNative",
            (Split::Whole, WarpCombine::Fold, CasLoop) => "WarpCasLoop",
            (Split::Whole, WarpCombine::Fold, IntMinMax) => "WarpIntMinMax",
            (Split::Whole, WarpCombine::Fold, CasThenMaskedLoop) => "WarpCasThenMaskedLoop",
            (Split::Whole, WarpCombine::Fold, _) => "WarpMaskedCasLoop",
            (Split::Whole, WarpCombine::SerialFold, _) => "WarpSerialFold",
            (Split::Whole, WarpCombine::WordFold, _) => "WarpWordFold",
        }
    }

    /// The lowering whose flat name ([`Lowering::name`]) is `name`.
    pub fn from_name(name: &str) -> Option<Lowering> {
        Lowering::ALL
            .into_iter()
            .find(|lowering| lowering.name() == name)
    }

    /// The two integer atomics of [`ElementLowering::IntMinMax`] for float `op` on `ty`:
    /// `[signed, unsigned]`, the first (on the signed integer of the width) for an operand whose
    /// sign bit is clear, the second (on the unsigned one) for the others: max is a signed max
    /// or an unsigned min, min mirrored. `None` where `op` on `ty` is not a float min/max that
    /// lowering computes (`fminimumnum`/`fmaximumnum` are the same functions as `min`/`max`;
    /// `fminimum`/`fmaximum` propagate NaNs).
    pub const fn int_min_max_atomics(
        op: AtomicOp,
        ty: ElemType,
    ) -> Option<[(AtomicOp, ElemType); 2]> {
        if !matches!(ty.class(), TypeClass::Float) {
            return None;
        }
        let (signed, unsigned) = match ty.bits() {
            16 => (ElemType::S16, ElemType::U16),
            32 => (ElemType::S32, ElemType::U32),
            64 => (ElemType::S64, ElemType::U64),
            _ => return None,
        };
        match op {
            AtomicOp::Max | AtomicOp::FMaximumNum => {
                Some([(AtomicOp::Max, signed), (AtomicOp::Min, unsigned)])
            }
            AtomicOp::Min | AtomicOp::FMinimumNum => {
                Some([(AtomicOp::Min, signed), (AtomicOp::Max, unsigned)])
            }
            _ => None,
        }
    }
}

impl From<ElementLowering> for Lowering {
    fn from(element: ElementLowering) -> Self {
        Lowering::whole(element)
    }
}

impl fmt::Display for Lowering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Lowering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ELEMENTS: [ElementLowering; 6] = [
        ElementLowering::Native,
        ElementLowering::CasLoop,
        ElementLowering::CasThenMaskedLoop,
        ElementLowering::MaskedCasLoop,
        ElementLowering::MaskedOp,
        ElementLowering::IntMinMax,
    ];

    /// Every combination of axes `new` accepts.
    fn accepted() -> Vec<Lowering> {
        let mut accepted = Vec::new();
        for element in ELEMENTS {
            for split in [Split::Whole, Split::PerElement] {
                for warp in [
                    WarpCombine::PerLane,
                    WarpCombine::Fold,
                    WarpCombine::SerialFold,
                    WarpCombine::WordFold,
                ] {
                    if let Ok(lowering) = Lowering::new(element, split, warp) {
                        assert_eq!(
                            (lowering.element(), lowering.split(), lowering.warp()),
                            (element, split, warp)
                        );
                        accepted.push(lowering);
                    }
                }
            }
        }
        accepted
    }

    #[test]
    fn the_constructor_accepts_exactly_the_listed_lowerings() {
        let accepted = accepted();
        assert_eq!(accepted.len(), Lowering::ALL.len());
        for lowering in Lowering::ALL {
            assert!(accepted.contains(&lowering), "{lowering}");
        }
    }

    #[test]
    fn every_lowering_has_its_own_flat_name() {
        let mut names: Vec<&str> = Lowering::ALL.iter().map(|l| l.name()).collect();
        for lowering in Lowering::ALL {
            assert_eq!(Lowering::from_name(lowering.name()), Some(lowering));
            assert_eq!(format!("{lowering:?}"), lowering.name());
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Lowering::ALL.len());
    }

    #[test]
    fn rejected_axes_say_why() {
        let cases = [
            (
                (ElementLowering::MaskedOp, Split::Whole, WarpCombine::Fold),
                "masked op has no warp fold",
            ),
            (
                (
                    ElementLowering::Native,
                    Split::PerElement,
                    WarpCombine::Fold,
                ),
                "split node",
            ),
            (
                (
                    ElementLowering::Native,
                    Split::Whole,
                    WarpCombine::SerialFold,
                ),
                "serial fold is a CAS loop",
            ),
            (
                (
                    ElementLowering::CasLoop,
                    Split::Whole,
                    WarpCombine::WordFold,
                ),
                "word fold is a masked CAS loop",
            ),
        ];
        for ((element, split, warp), why) in cases {
            let error = Lowering::new(element, split, warp).unwrap_err().to_string();
            assert!(error.contains(why), "{error}");
        }
    }

    #[test]
    fn a_vector_splits_and_drops_the_warp() {
        let v4 = VectorShape::V4;
        for lowering in Lowering::ALL {
            let split = lowering.for_shape(v4);
            assert!(split.is_split() && split.warp() == WarpCombine::PerLane);
            assert_eq!(split.element(), lowering.element());
            let scalar = split.for_shape(VectorShape::Scalar);
            assert_eq!(scalar, Lowering::whole(lowering.element()));
        }
    }
}
