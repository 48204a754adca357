//! Text templates: the code of an expansion printed once, then copied for every later
//! instruction that would print the same text but for its names.
//!
//! A program repeats a handful of kinds of atomic, and a printer spells one kind the same way
//! each time except for what belongs to the instruction: the registers of its operands and
//! result, its temporaries, the number in its labels. While the first such instruction is
//! printed, the printer marks each of those names (and each side effect that must happen again,
//! as an empty mark) as a numbered hole through its [`Recorder`]; a later instruction of the
//! same plan and the same [shape](super::Replay::shape) copies the text between the holes
//! and asks the printer to fill each hole ([`Replay::fill`](super::Replay::fill)). Copying
//! a few runs of text is several times faster than deciding and spelling each piece again, and
//! the output is the same byte for byte, which is what a printer's shape must guarantee.

use std::cell::{Cell, RefCell};

use super::Unprintable;
use crate::spelling::pairs_of;

/// A printer's number for what one hole of a template stands for.
pub type Hole = u32;

/// What a recorder marked in the text: a printer's hole, or a place of the instruction's
/// number.
#[derive(Clone, Copy, Debug)]
enum Mark {
    Hole(Hole),
    Number,
}

/// Where a printer marks the holes of the text it prints while a template is recorded.
///
/// It takes `&self` so that a [`Spell`](super::Spell) value that only borrows the printer can
/// mark the name it spells. While nothing is recorded a mark costs one test.
#[derive(Debug, Default)]
pub struct Recorder {
    /// Where the recorded text starts in the output, while one is recorded.
    start: Cell<Option<usize>>,
    /// (start, end, mark) of each hole and number marked, in the output, in order.
    marks: RefCell<Vec<(usize, usize, Mark)>>,
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
            self.marks.borrow_mut().push((start, end, Mark::Hole(hole)));
        }
    }

    /// Marks `out[start..end]` as the instruction's id (its [`Inst`](crate::Inst) number) in
    /// decimal: a replay writes its own instruction's there without asking the printer, so a
    /// number that names an instruction's registers and labels many times costs no hole each.
    /// A template whose text there is not that number is not kept.
    #[inline]
    pub fn number(&self, start: usize, end: usize) {
        if self.is_recording() {
            self.marks.borrow_mut().push((start, end, Mark::Number));
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
        self.marks.borrow_mut().clear();
        self.spoiled.set(false);
    }

    /// Stops recording: the template of what `out` holds from where recording began, printed
    /// for the instruction numbered `number`, unless it was spoiled, its marks are out of
    /// order, or a place of the number holds other text.
    pub(super) fn finish(&self, out: &str, number: u32) -> Option<Template> {
        let start = self.start.take()?;
        let marks = self.marks.take();
        if self.spoiled.replace(false) {
            return None;
        }
        let mut buffer = [0u8; 20];
        let digits = pairs_of(u64::from(number), &mut buffer);
        let mut template = Template {
            number,
            width: digits.len() as u8,
            ..Template::default()
        };
        let mut at = start;
        for (from, to, mark) in marks {
            if from < at || to < from || to > out.len() {
                return None;
            }
            template.stamp.push_str(out.get(at..from)?);
            let stamp_at = template.stamp.len() as u32;
            match mark {
                // A hole's text is the recorded instruction's own: not kept.
                Mark::Hole(hole) => template.holes.push((stamp_at, hole)),
                Mark::Number if out.get(from..to)?.as_bytes() == digits => {
                    template.number_at.push(stamp_at);
                    template.stamp.push_str(out.get(from..to)?);
                }
                Mark::Number => return None,
            }
            at = to;
        }
        template.stamp.push_str(out.get(at..)?);
        Some(template)
    }
}

/// Recorded text with holes and the places of the instruction's number.
///
/// The text is kept as it was last written, the number of the instruction it was last replayed
/// for (or recorded from) in each of its places: a replay rewrites the digits that differ in
/// place (consecutive instructions of one kind differ in their last digit or two) and copies
/// the text between the printer's holes whole, rather than a run of text and a number for
/// each place.
#[derive(Clone, Debug, Default)]
pub struct Template {
    /// The text between the printer's holes, with `number` in each place of the number.
    stamp: String,
    /// Where in `stamp` each place of the number begins, in order.
    number_at: Vec<u32>,
    /// Where in `stamp` each of the printer's holes is, in order.
    holes: Vec<(u32, Hole)>,
    /// The number `stamp` holds, and how many digits it has.
    number: u32,
    width: u8,
}

impl Template {
    /// Appends the text to `out` for the instruction numbered `number`, each hole as `fill`
    /// writes it.
    pub(super) fn replay(
        &mut self,
        number: u32,
        out: &mut String,
        mut fill: impl FnMut(Hole, &mut String) -> Result<(), Unprintable>,
    ) -> Result<(), Unprintable> {
        if !self.number_at.is_empty() {
            self.set_number(number);
        }
        out.reserve(self.stamp.len());
        let mut at = 0;
        for &(hole_at, hole) in &self.holes {
            let hole_at = hole_at as usize;
            if hole_at > at {
                out.push_str(&self.stamp[at..hole_at]);
                at = hole_at;
            }
            fill(hole, out)?;
        }
        out.push_str(&self.stamp[at..]);
        Ok(())
    }

    /// Writes `number` in each place of the number in `stamp`.
    #[inline]
    fn set_number(&mut self, number: u32) {
        let width = number.checked_ilog10().unwrap_or(0) + 1;
        if width != u32::from(self.width) {
            return self.respell_number(number);
        }
        // SAFETY: every byte written is an ASCII digit, over a byte of a place of the number,
        // which is an ASCII digit too (`finish` checked the recorded text there, and only this
        // and `respell_number` write there). An ASCII byte is a character of its own in UTF-8
        // and no byte of a longer character, so `stamp` stays valid UTF-8.
        let stamp = unsafe { self.stamp.as_bytes_mut() };
        // Only the digits that differ, from the last: those of one kind of instruction after
        // another are mostly a digit or two.
        let (mut old, mut new) = (self.number, number);
        let mut at = width as usize;
        while old != new {
            at -= 1;
            let digit = b'0' + (new % 10) as u8;
            for &place in &self.number_at {
                stamp[place as usize + at] = digit;
            }
            (old, new) = (old / 10, new / 10);
        }
        self.number = number;
    }

    /// Writes `number`, of another width than the number `stamp` holds, in each of its
    /// places, moving the text after each and the holes with it.
    fn respell_number(&mut self, number: u32) {
        let mut buffer = [0u8; 20];
        let digits = pairs_of(u64::from(number), &mut buffer);
        let (old, new) = (usize::from(self.width), digits.len());
        let mut stamp = String::with_capacity(self.stamp.len() + self.number_at.len() * new);
        let mut holes = self.holes.iter_mut().peekable();
        let mut at = 0;
        for place in &mut self.number_at {
            let end = *place as usize;
            while let Some((hole_at, _)) = holes.next_if(|(hole_at, _)| *hole_at as usize <= end) {
                *hole_at = (stamp.len() + (*hole_at as usize - at)) as u32;
            }
            stamp.push_str(&self.stamp[at..end]);
            *place = stamp.len() as u32;
            stamp.push_str(std::str::from_utf8(digits).unwrap_or_default());
            at = end + old;
        }
        for (hole_at, _) in holes {
            *hole_at = (stamp.len() + (*hole_at as usize - at)) as u32;
        }
        stamp.push_str(&self.stamp[at..]);
        self.stamp = stamp;
        self.number = number;
        self.width = new as u8;
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
    Replay(&'t mut Template),
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
    pub(super) fn look_up(&mut self, plan: usize) -> Found<'_> {
        let shapes = self
            .by_plan
            .get_mut(plan)
            .map_or(&mut [][..], |shapes| shapes);
        let count = shapes.len();
        match shapes.iter_mut().find(|(shape, _)| *shape == self.shape) {
            Some((_, Some(template))) => Found::Replay(template),
            Some((_, None)) => Found::Print,
            None if count >= Self::SHAPES_PER_PLAN => Found::Print,
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
        let mut template = recorder.finish(&out, 3).expect("recorded");
        assert!(!recorder.is_recording());
        let mut replayed = String::new();
        let mut effects = Vec::new();
        template
            .replay(4, &mut replayed, |hole, out| {
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
        assert!(recorder.finish("text", 0).is_none());
        recorder.begin(0);
        assert!(recorder.marks.borrow().is_empty());
        recorder.hole(2, 3, 1);
        recorder.hole(0, 1, 2);
        assert!(recorder.finish("text", 0).is_none(), "holes out of order");
        recorder.begin(0);
        recorder.number(1, 3);
        assert!(recorder.finish("x12y", 13).is_none(), "not the number");
    }

    /// Records `.7.b0:` and `%.7.1 = op %a, %.7.2` with a hole for `%a` and an empty one at
    /// the end, for instruction 7.
    fn numbered_template() -> Template {
        let recorder = Recorder::new();
        let mut out = String::from("x");
        recorder.begin(out.len());
        for piece in [
            ".",
            "#",
            ".b0:\n  %.",
            "#",
            ".1 = op ",
            "%a",
            ", %.",
            "#",
            ".2\n",
        ] {
            let at = out.len();
            match piece {
                "#" => {
                    out.push('7');
                    recorder.number(at, out.len());
                }
                "%a" => {
                    out.push_str(piece);
                    recorder.hole(at, out.len(), 1);
                }
                _ => out.push_str(piece),
            }
        }
        recorder.hole(out.len(), out.len(), 2);
        recorder.finish(&out, 7).expect("recorded")
    }

    #[test]
    fn a_replay_writes_its_own_number_in_each_place() {
        let mut template = numbered_template();
        let mut replayed = String::new();
        // The same width, another width, back, and the same number again.
        for number in [9, 10, 123_456, 8, 8, 4_294_967_295, 0] {
            let mut effects = Vec::new();
            let start = replayed.len();
            template
                .replay(number, &mut replayed, |hole, out| {
                    effects.push(hole);
                    if hole == 1 {
                        out.push_str("%b");
                    }
                    Ok(())
                })
                .unwrap();
            let n = number.to_string();
            let want = format!(".{n}.b0:\n  %.{n}.1 = op %b, %.{n}.2\n");
            assert_eq!(&replayed[start..], want);
            assert_eq!(effects, [1, 2]);
        }
    }
}
