//! Whether the old values that threads got from atomics on one element, with the element's
//! initial and final value, form a valid linearization.
//!
//! Each thread contributes one edge `old -> apply(op, old, operand)`: it saw `old` and left the
//! new value. An order of the threads in which each saw the value the previous one left exists
//! exactly when the edges form an Euler trail from the initial to the final value: every value
//! is left as often as it is reached (the initial value once more, the final value once less,
//! unless they are equal), and every edge lies in the initial value's connected component.

/// Checks Euler trails; keeps its buffers between calls, so checking many elements allocates
/// only for the largest one.
pub struct Linearizer<T> {
    /// Every endpoint's value with its position: edge `i`'s ends at `2i` and `2i + 1`, then
    /// the initial and the final value.
    endpoints: Vec<(T, u32)>,
    /// Each endpoint's vertex number.
    vertex: Vec<u32>,
    balance: Vec<i64>,
    parent: Vec<u32>,
    touched: Vec<bool>,
}

impl<T: Copy + Ord> Default for Linearizer<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Ord> Linearizer<T> {
    pub fn new() -> Self {
        Self {
            endpoints: Vec::new(),
            vertex: Vec::new(),
            balance: Vec::new(),
            parent: Vec::new(),
            touched: Vec::new(),
        }
    }

    /// Whether the edges `old -> new` form an Euler trail from `init` to `last`.
    pub fn is_trail(&mut self, init: T, last: T, edges: &[(T, T)]) -> bool {
        if edges.is_empty() {
            return init == last;
        }
        // Number the distinct values by sorting the endpoints once (no lookups afterwards).
        let ends = 2 * edges.len();
        self.endpoints.clear();
        for (index, &(from, to)) in edges.iter().enumerate() {
            self.endpoints.push((from, 2 * index as u32));
            self.endpoints.push((to, 2 * index as u32 + 1));
        }
        self.endpoints.push((init, ends as u32));
        self.endpoints.push((last, ends as u32 + 1));
        self.endpoints.sort_unstable();
        self.vertex.clear();
        self.vertex.resize(ends + 2, 0);
        let mut count = 0u32;
        for (position, &(value, end)) in self.endpoints.iter().enumerate() {
            if position > 0 && self.endpoints[position - 1].0 != value {
                count += 1;
            }
            self.vertex[end as usize] = count;
        }
        let count = count as usize + 1;
        self.balance.clear();
        self.balance.resize(count, 0);
        self.touched.clear();
        self.touched.resize(count, false);
        self.parent.clear();
        self.parent.extend(0..count as u32);
        for pair in self.vertex[..ends].chunks_exact(2) {
            let (a, b) = (pair[0], pair[1]);
            self.balance[a as usize] += 1;
            self.balance[b as usize] -= 1;
            self.touched[a as usize] = true;
            self.touched[b as usize] = true;
            let (ra, rb) = (root(&mut self.parent, a), root(&mut self.parent, b));
            if ra != rb {
                self.parent[ra.max(rb) as usize] = ra.min(rb);
            }
        }
        let (init_id, last_id) = (self.vertex[ends], self.vertex[ends + 1]);
        let open = i64::from(init != last);
        for (vertex, &balance) in self.balance.iter().enumerate() {
            let vertex = vertex as u32;
            let expected = open * (i64::from(vertex == init_id) - i64::from(vertex == last_id));
            if balance != expected {
                return false;
            }
        }
        if !self.touched[init_id as usize] {
            return false;
        }
        let component = root(&mut self.parent, init_id);
        (0..count as u32)
            .all(|v| !self.touched[v as usize] || root(&mut self.parent, v) == component)
    }
}

/// The representative of `x`'s set, halving the path on the way.
fn root(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let grandparent = parent[parent[x as usize] as usize];
        parent[x as usize] = grandparent;
        x = grandparent;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tries every order of the edges.
    fn brute_force(init: u8, last: u8, edges: &[(u8, u8)]) -> bool {
        fn search(value: u8, last: u8, edges: &[(u8, u8)], used: &mut [bool]) -> bool {
            if used.iter().all(|&u| u) {
                return value == last;
            }
            for index in 0..edges.len() {
                if !used[index] && edges[index].0 == value {
                    used[index] = true;
                    if search(edges[index].1, last, edges, used) {
                        return true;
                    }
                    used[index] = false;
                }
            }
            false
        }
        search(init, last, edges, &mut vec![false; edges.len()])
    }

    #[test]
    fn agrees_with_trying_every_order() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n) as u8
        };
        let mut linearizer = Linearizer::new();
        let (mut valid, mut invalid) = (0, 0);
        for _ in 0..20_000 {
            let count = next(7) as usize;
            let values = 1 + u64::from(next(5));
            let edges: Vec<(u8, u8)> = (0..count).map(|_| (next(values), next(values))).collect();
            let (init, last) = (next(values), next(values));
            let expected = brute_force(init, last, &edges);
            assert_eq!(
                linearizer.is_trail(init, last, &edges),
                expected,
                "init {init}, last {last}, edges {edges:?}"
            );
            if expected {
                valid += 1;
            } else {
                invalid += 1;
            }
        }
        assert!(
            valid > 1000 && invalid > 1000,
            "{valid} valid, {invalid} invalid"
        );
    }

    #[test]
    fn a_cycle_apart_from_the_trail_is_no_linearization() {
        let mut linearizer = Linearizer::new();
        // 0 -> 1 -> 2 is the trail; 5 -> 6 -> 5 is balanced but never reached.
        let edges = [(0u32, 1), (1, 2), (5, 6), (6, 5)];
        assert!(!linearizer.is_trail(0, 2, &edges));
        assert!(linearizer.is_trail(0, 2, &edges[..2]));
        assert!(linearizer.is_trail(3, 3, &[]));
        assert!(!linearizer.is_trail(3, 4, &[]));
        // A closed trail must start where memory started.
        assert!(!linearizer.is_trail(0, 0, &[(1, 2), (2, 1)]));
        assert!(linearizer.is_trail(1, 1, &[(1, 2), (2, 1)]));
    }
}
