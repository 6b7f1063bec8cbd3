//! The Ruby kit: a protocol adapter, standard library only, around one file of two methods.

use super::Kit;

pub(super) const KIT: Kit = Kit {
    language: "ruby",
    needs: "Ruby 3.1 or later (standard library only)",
    files: &[
        (
            "solution.rb",
            include_str!("../../../conformance/kits/ruby/solution.rb"),
        ),
        (
            "main.rb",
            include_str!("../../../conformance/kits/ruby/main.rb"),
        ),
        (
            "python_json.rb",
            include_str!("../../../conformance/kits/ruby/python_json.rb"),
        ),
        (
            "parcall.json",
            include_str!("../../../conformance/kits/ruby/parcall.json"),
        ),
        (
            "README.md",
            include_str!("../../../conformance/kits/ruby/README.md"),
        ),
    ],
    functions: "solution.rb",
    next: &["parcall check . --runtime ruby=ruby"],
};
