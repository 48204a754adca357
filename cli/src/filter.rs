//! `--filter op=add,type=f32,…`: which lowering-matrix cells a report shows.
//!
//! Keys: `op` (an op or `fence`), `type`, `shape`, `order`, `scope`, `space`, `result` (`used` or
//! `dead`). A key given more than once accepts any of its values (`op=add,op=sub`); different
//! keys must all match. A fence has no type, shape, space or result, so a filter on any of those
//! leaves fences out.

use std::str::FromStr;

use atomir_ir::matrix::AnyCell;
use atomir_ir::{AddressSpace, AtomicOp, ElemType, MemoryOrder, Scope, VectorShape};

/// The keys a filter understands, for messages.
pub const KEYS: &str = "op, type, shape, order, scope, space, result";

/// A conjunction of per-key alternatives; an empty list accepts everything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CellFilter {
    /// `None` stands for `fence`.
    ops: Vec<Option<AtomicOp>>,
    types: Vec<ElemType>,
    shapes: Vec<VectorShape>,
    orders: Vec<MemoryOrder>,
    scopes: Vec<Scope>,
    spaces: Vec<AddressSpace>,
    results: Vec<bool>,
}

fn accepts<T: PartialEq>(allowed: &[T], value: T) -> bool {
    allowed.is_empty() || allowed.contains(&value)
}

impl CellFilter {
    /// Whether `cell` passes. A fence has no type, shape, space or result: a filter on any of
    /// those leaves fences out.
    pub fn matches(&self, cell: &AnyCell) -> bool {
        let common = accepts(&self.orders, cell.order()) && accepts(&self.scopes, cell.scope());
        match cell.access() {
            Some(cell) => {
                common
                    && accepts(&self.ops, Some(cell.op))
                    && accepts(&self.types, cell.ty)
                    && accepts(&self.shapes, cell.shape)
                    && accepts(&self.spaces, cell.space)
                    && accepts(&self.results, cell.result_used)
            }
            None => {
                common
                    && accepts(&self.ops, None)
                    && self.types.is_empty()
                    && self.shapes.is_empty()
                    && self.spaces.is_empty()
                    && self.results.is_empty()
            }
        }
    }

    /// Adds the conditions of one `key=value,…` string.
    pub fn add(&mut self, text: &str) -> Result<(), String> {
        for term in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            let Some((key, value)) = term.split_once('=') else {
                return Err(format!(
                    "filter term `{term}` is not `key=value` (keys: {KEYS})"
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            match key {
                "op" if value == "fence" => self.ops.push(None),
                "op" => self.ops.push(Some(spelled(
                    key,
                    value,
                    AtomicOp::from_name,
                    AtomicOp::ALL,
                )?)),
                "type" => self
                    .types
                    .push(spelled(key, value, ElemType::from_name, ElemType::ALL)?),
                "shape" => self.shapes.push(spelled(
                    key,
                    value,
                    VectorShape::from_name,
                    VectorShape::ALL,
                )?),
                "order" => self.orders.push(spelled(
                    key,
                    value,
                    MemoryOrder::from_name,
                    MemoryOrder::ALL,
                )?),
                "scope" => self
                    .scopes
                    .push(spelled(key, value, Scope::from_name, Scope::ALL)?),
                "space" => self.spaces.push(spelled(
                    key,
                    value,
                    AddressSpace::from_name,
                    AddressSpace::ALL,
                )?),
                "result" => self.results.push(match value {
                    "used" => true,
                    "dead" => false,
                    _ => return Err(format!("unknown result `{value}`: expected used or dead")),
                }),
                _ => return Err(format!("unknown filter key `{key}` (keys: {KEYS})")),
            }
        }
        Ok(())
    }
}

fn spelled<T: Copy + std::fmt::Display>(
    key: &str,
    value: &str,
    from_name: fn(&str) -> Option<T>,
    all: &[T],
) -> Result<T, String> {
    from_name(value).ok_or_else(|| {
        let names: Vec<String> = all.iter().map(T::to_string).collect();
        format!(
            "unknown {key} `{value}`: expected one of {}",
            names.join(", ")
        )
    })
}

impl FromStr for CellFilter {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let mut filter = CellFilter::default();
        filter.add(text)?;
        Ok(filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomir_ir::matrix::{all_cells, Cell};

    #[test]
    fn keys_and_alternatives() {
        let filter: CellFilter = "op=add,op=sub,type=f32,result=dead".parse().unwrap();
        let chosen: Vec<Cell> = all_cells()
            .filter(|c| filter.matches(c))
            .map(|c| *c.access().expect("no fence has a type"))
            .collect();
        assert!(!chosen.is_empty());
        assert!(chosen
            .iter()
            .all(|c| matches!(c.op, AtomicOp::Add | AtomicOp::Sub)
                && c.ty == ElemType::F32
                && !c.result_used));
        assert!(chosen.iter().any(|c| c.op == AtomicOp::Sub));
    }

    #[test]
    fn fences_by_op_order_and_scope() {
        let filter: CellFilter = "op=fence,order=seq_cst".parse().unwrap();
        let chosen: Vec<AnyCell> = all_cells().filter(|c| filter.matches(c)).collect();
        assert_eq!(chosen.len(), Scope::ALL.len());
        assert!(chosen.iter().all(|c| c.access().is_none()));
        let typed: CellFilter = "op=fence,type=u32".parse().unwrap();
        assert_eq!(all_cells().filter(|c| typed.matches(c)).count(), 0);
        let loads: CellFilter = "op=load,order=acquire,type=u32".parse().unwrap();
        assert!(all_cells().filter(|c| loads.matches(c)).count() > 0);
    }

    #[test]
    fn bad_terms_say_what_is_expected() {
        let error = "op=adds".parse::<CellFilter>().unwrap_err();
        assert!(error.contains("expected one of add, sub"), "{error}");
        let error = "colour=red".parse::<CellFilter>().unwrap_err();
        assert!(error.contains("unknown filter key `colour`"), "{error}");
        assert!("op".parse::<CellFilter>().is_err());
    }
}
