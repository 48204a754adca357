//! Text templates: the code of an expansion printed once, then copied for every later
//! instruction that would print the same text but for its names.
//!
//! A program repeats a handful of kinds of atomic, and a printer spells one kind the same way
//! each time except for what belongs to the instruction: the registers of its operands and
//! result, its temporaries, the number in its labels. While the first such instruction is
//! printed, the printer marks each of those names (and each side effect that must happen again,
//! as an empty mark) as a numbered hole through its [`Recorder`]; a later instruction of the
//! same plan and the same [shape](super::Printer::shape) copies the text between the holes
//! and asks the printer to fill each hole ([`Printer::fill`](super::Printer::fill)). Copying
//! a few runs of text is several times faster than deciding and spelling each piece again, and
//! the output is the same byte for byte, which is what a printer's shape must guarantee.

use std::cell::{Cell, RefCell};

use super::Unprintable;

/// A printer's number for what one hole of a template stands for.
pub type Hole = u32;

/// Where a printer marks the holes of the text it prints while a template is recorded.
///
/// It takes `&self` so that a [`Spell`](super::Spell) value that only borrows the printer can
/// mark the name it spells. While nothing is recorded a mark costs one test.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Where the recorded text starts in the output, while one is recorded.
    start: Cell<Option<usize>>,
    /// (start, end, hole) of each hole marked, in the output, in order.
    holes: RefCell<Vec<(usize, usize, Hole)>>,
    /// Whether the printer met something it cannot mark: the text is then not kept.
    spoiled: Cell<bool>,
}

impl Recorder {
    /// A recorder that records nothing yet.
    pub fn new() -> Self {
        Recorder::default()
    }

    /// Whether a template is being recorded (and marks are kept).
    #[inline]
    pub fn is_recording(&self) -> bool {
        self.start.get().is_some()
    }

    /// Marks `out[start..end]` as hole `hole`: a replay writes whatever the printer fills it
    /// with instead. An empty hole stands for a side effect a replay must repeat. Holes are
    /// marked in the order of the text and do not overlap.
    #[inline]
    pub fn hole(&self, start: usize, end: usize, hole: Hole) {
        if self.is_recording() {
            self.holes.borrow_mut().push((start, end, hole));
        }
    }

    /// Says that the text being recorded depends on something no hole stands for: it is
    /// printed, but no template is kept of it.
    pub fn spoil(&self) {
        if self.is_recording() {
            self.spoiled.set(true);
        }
    }

    /// Starts recording the text `out` holds from `at` on.
    pub(super) fn begin(&self, at: usize) {
        self.start.set(Some(at));
        self.holes.borrow_mut().clear();
        self.spoiled.set(false);
    }

    /// Stops recording: the template of what `out` holds from where recording began, unless
    /// it was spoiled or its holes are out of order.
    pub(super) fn finish(&self, out: &str) -> Option<Template> {
        let start = self.start.take()?;
        let holes = self.holes.take();
        if self.spoiled.replace(false) {
            return None;
        }
        let mut template = Template::default();
        let mut at = start;
        for (from, to, hole) in holes {
            if from < at || to < from || to > out.len() {
                return None;
            }
            template.text(out.get(at..from)?);
            template.pieces.push(Piece::Hole(hole));
            at = to;
        }
        template.text(out.get(at..)?);
        Some(template)
    }
}

/// Recorded text with holes.
#[derive(Clone, Debug, Default)]
pub struct Template {
    /// The text between the holes, run after run.
    text: String,
    pieces: Vec<Piece>,
}

#[derive(Clone, Copy, Debug)]
enum Piece {
    /// The text up to this end in [`Template::text`], from the previous text piece's end.
    Text(u32),
    Hole(Hole),
}

impl Template {
    fn text(&mut self, run: &str) {
        if !run.is_empty() {
            self.text.push_str(run);
            self.pieces.push(Piece::Text(self.text.len() as u32));
        }
    }

    /// Appends the text to `out`, each hole as `fill` writes it.
    pub(super) fn replay(
        &self,
        out: &mut String,
        mut fill: impl FnMut(Hole, &mut String) -> Result<(), Unprintable>,
    ) -> Result<(), Unprintable> {
        out.reserve(self.text.len());
        let mut at = 0;
        for piece in &self.pieces {
            match *piece {
                Piece::Text(end) => {
                    let end = end as usize;
                    out.push_str(&self.text[at..end]);
                    at = end;
                }
                Piece::Hole(hole) => fill(hole, out)?,
            }
        }
        Ok(())
    }
}

/// The templates of one kernel, by plan and shape.
#[derive(Debug, Default)]
pub(super) struct Templates {
    /// By plan index: each shape met (a printer's words) and its template, `None` where the
    /// recording was spoiled (so that it is not recorded again).
    by_plan: Vec<Vec<(Vec<u64>, Option<Template>)>>,
    /// The shape of the instruction being printed.
    pub(super) shape: Vec<u64>,
}

/// What [`Templates::look_up`] found for a plan and shape.
pub(super) enum Found<'t> {
    /// A template to replay.
    Replay(&'t Template),
    /// None: record one.
    Record,
    /// None, and none to record (spoiled before, or too many shapes for the plan).
    Print,
}

impl Templates {
    /// The most shapes kept for one plan: a program that gives one kind of atomic ever new
    /// shapes is printed without templates past these, so that they hold little memory.
    const SHAPES_PER_PLAN: usize = 16;

    /// Forgets every template.
    pub(super) fn clear(&mut self) {
        for shapes in &mut self.by_plan {
            shapes.clear();
        }
    }

    /// The template of plan `plan` for [`Templates::shape`].
    pub(super) fn look_up(&self, plan: usize) -> Found<'_> {
        let shapes = self.by_plan.get(plan).map_or(&[][..], |shapes| shapes);
        match shapes.iter().find(|(shape, _)| *shape == self.shape) {
            Some((_, Some(template))) => Found::Replay(template),
            Some((_, None)) => Found::Print,
            None if shapes.len() >= Self::SHAPES_PER_PLAN => Found::Print,
            None => Found::Record,
        }
    }

    /// Keeps `template` (`None`: spoiled) for plan `plan` and [`Templates::shape`].
    pub(super) fn keep(&mut self, plan: usize, template: Option<Template>) {
        if self.by_plan.len() <= plan {
            self.by_plan.resize_with(plan + 1, Vec::new);
        }
        self.by_plan[plan].push((self.shape.clone(), template));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_replays_its_text_with_the_holes_filled() {
        let recorder = Recorder::new();
        let mut out = String::from("before\n");
        recorder.begin(out.len());
        out.push_str("  add ");
        let at = out.len();
        out.push_str("%r1");
        recorder.hole(at, out.len(), 7);
        out.push_str(", 1\n");
        recorder.hole(out.len(), out.len(), 9);
        let template = recorder.finish(&out).expect("recorded");
        assert!(!recorder.is_recording());
        let mut replayed = String::new();
        let mut effects = Vec::new();
        template
            .replay(&mut replayed, |hole, out| {
                effects.push(hole);
                if hole == 7 {
                    out.push_str("%r22");
                }
                Ok(())
            })
            .unwrap();
        assert_eq!(replayed, "  add %r22, 1\n");
        assert_eq!(effects, [7, 9]);
    }

    #[test]
    fn a_spoiled_recording_keeps_no_template_and_marks_outside_one_are_ignored() {
        let recorder = Recorder::new();
        recorder.hole(0, 1, 1);
        recorder.begin(0);
        recorder.spoil();
        assert!(recorder.finish("text").is_none());
        recorder.begin(0);
        assert!(recorder.holes.borrow().is_empty());
        recorder.hole(2, 3, 1);
        recorder.hole(0, 1, 2);
        assert!(recorder.finish("text").is_none(), "holes out of order");
    }
}
