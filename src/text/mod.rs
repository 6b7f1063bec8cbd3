//! Text from outside (what an implementation printed, a student's submission name) made
//! harmless for where it is shown: a terminal or a spreadsheet. The one escaping rule set
//! of the crate; it imports nothing from the crate, so every floor may use it.

mod headline;
pub mod spreadsheet;
pub mod terminal;

pub use headline::headline;
