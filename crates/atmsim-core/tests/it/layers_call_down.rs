//! The core's layers call down (DESIGN §7): this test reads the crate's own sources and fails
//! on any reference from a layer to one above it, and on any cycle between units.
//!
//! What it reads: every file the library compiles outside `#[cfg(test)]`, parsed with `syn`.
//! A *reference* is a path rooted at `crate::` (in a `use`, a type, an expression or a
//! pattern), or at `super::`/`self::`/a child module, resolved to an absolute module path.
//! Each module path belongs to the unit of [`LAYERS`] that is its longest prefix; a reference
//! to a unit of a higher layer is *upward*. Units of one layer may use each other, but no
//! group of units may use each other in a circle.
//!
//! It also measures the *file cycle*: files that reach each other through references or
//! calls. A call `self.f(..)` or `Self::f(..)` in an `impl T`, or `T::f(..)`, links to the one
//! file whose inherent `impl T` defines `f` (a name defined in several files is left out, and
//! so are calls on other receivers, whose type a parser cannot know: the figure is a lower
//! bound). A `pub use` re-exports a name without using it and makes no link. The largest
//! group of files that all reach each other is printed beside the layer figures:
//! `cargo test -p atmsim-core --lib layers_call_down -- --nocapture`.
//!
//! A third figure: reads of an owner's `pub` field from another unit than the one declaring it
//! (a field name declared in one unit only, so the read is surely of that unit's struct).
//! `pub` here is any visibility beyond the declaring module (`pub`, `pub(crate)`,
//! `pub(super)`, `pub(in ..)`): narrowing `pub` to `pub(crate)` hides nothing from this count.
//! An *owner* is a struct with state it keeps: anything but a record. A *record* is a value
//! whose fields are its interface, as smoltcp's `TcpRepr` or a counter block — a struct that
//! derives `Clone`, has every field `pub`, and no inherent method taking `&mut self` (a
//! header, a segment, counters, a configuration, a view handed upward); reading its fields is
//! reading the value, and those reads are reported beside the count, not in it. There must be
//! none ([`no_owner_field_is_read_across_units`]); `ATMSIM_LAYERS_FIELDS=1` breaks it down by reader and
//! owner, `ATMSIM_LAYERS_FIELDS=summary>net` lists one pair's reads.
//!
//! A lower file of `net/` hands upward what must be routed at once (a drained switch's
//! control frame, a setup's answer, a segment through the host CPU) through a trait it
//! declares and the network implements in `net/run.rs`, the router: such upcalls make no
//! link from the lower file, and [`upcalls_are_routed_by_the_network`] checks that each is
//! implemented there and nowhere else.
//!
//! Tests are left out: a unit test may build a whole network through [`crate::api`] to check
//! a layer, which is a test at the right level, not an upward dependency.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The units of the core and their layers, bottom (0) up. A module path belongs to the
/// longest entry that is a prefix of it; a module no entry covers fails the test, so a new
/// top-level module must be placed here.
const LAYERS: &[(&str, u8)] = &[
    // Numbers and names every layer uses.
    ("time", 0),
    ("ids", 0),
    ("error", 0),
    ("detmap", 0),
    ("header", 0),
    // The engine and randomness.
    ("rng", 1),
    ("kernel", 1),
    ("arbiter", 1),
    ("dist", 1),
    // The cell fabric's parts, then what rides on cells, then the fabric that runs them.
    ("atm", 2),
    ("abr", 3),
    ("signalling", 3),
    ("atm::fabric", 4),
    // Below IP, IP, above IP.
    ("iface", 5),
    ("ip", 6),
    ("transport", 7),
    ("apps", 8),
    // What the world records while it runs.
    ("measure", 9),
    ("pcap", 9),
    // The world: owns the layers' state and routes between them.
    ("net", 10),
    // What is read from the world after a run, what builds it, and the entry points.
    ("summary", 11),
    ("scenario", 12),
    ("api", 13),
];

/// The largest group of files allowed to reach each other in a circle: today the output port
/// with its priority schedulers (`atm/port`, `atm/priority`, `atm/sched.rs`), and the fabric
/// with its ways of serving ports and draining switches (`atm/fabric`).
const MAX_FILE_CYCLE: usize = 4;

#[test]
fn no_layer_references_a_layer_above_it() {
    let core = Core::read();
    let figures = core.figures();
    println!("{}", figures.report());
    assert!(figures.unplaced.is_empty(), "modules with no layer in LAYERS: {:?}", figures.unplaced);
    assert!(
        figures.upward.is_empty(),
        "{} upward references (a layer naming one above it):\n{}",
        figures.upward.len(),
        figures.upward.join("\n")
    );
}

#[test]
fn no_units_use_each_other_in_a_circle() {
    let figures = Core::read().figures();
    assert!(figures.unit_cycles.is_empty(), "units that use each other in a circle: {:?}", figures.unit_cycles);
}

/// Reads of another unit's owners' `pub` fields (module docs): none. An owner is asked through
/// its methods; a record's fields are read.
#[test]
fn no_owner_field_is_read_across_units() {
    let figures = Core::read().figures();
    assert_eq!(
        figures.field_reads_across, 0,
        "reads of another unit's owners' pub fields: give the owner a method instead \
         (`ATMSIM_LAYERS_FIELDS=1` lists them by reader and owner)"
    );
}

/// What counts as a record: a value with every field `pub` that derives `Clone` and has no
/// method taking `&mut self`; anything else is an owner.
#[test]
fn records_are_told_from_owners() {
    let ast: syn::File = syn::parse_str(
        r#"
        #[derive(Clone, Copy, Debug)]
        pub struct Header { pub src: u32, pub(crate) dst: u32 }
        #[derive(Clone)]
        pub struct Counts { pub sent: u64 }
        impl Counts { pub fn bump(&mut self) { self.sent += 1 } }
        #[derive(Clone)]
        pub struct Half { pub a: u32, b: u32 }
        pub struct Slot { pub gen: u32 }
        "#,
    )
    .unwrap();
    let file = SourceFile { path: "x.rs".into(), module: vec!["x".into()], ast };
    let scan = Scan::of(&file, &BTreeSet::new());
    assert_eq!(scan.record_like, BTreeSet::from(["Header".to_string(), "Counts".to_string()]));
    assert_eq!(scan.mutated, BTreeSet::from(["Counts".to_string()]), "Counts has a mutating method: an owner");
    assert!(scan.fields.contains(&("dst".to_string(), true, "Header".to_string())));
    assert!(scan.fields.contains(&("b".to_string(), false, "Half".to_string())));
}

#[test]
fn the_largest_file_cycle_stays_bounded() {
    let figures = Core::read().figures();
    let largest = figures.file_cycles.first().map_or(0, Vec::len);
    assert!(
        largest <= MAX_FILE_CYCLE,
        "{largest} files reach each other in a circle (at most {MAX_FILE_CYCLE}): {:?}",
        figures.file_cycles.first()
    );
}

#[test]
fn upcalls_are_routed_by_the_network() {
    let core = Core::read();
    let mut declared = BTreeMap::new();
    let mut implemented = Vec::new();
    for file in core.files.iter().filter(|f| f.path.starts_with("net/")) {
        for item in &file.ast.items {
            match item {
                syn::Item::Trait(t) if !is_test_only(&t.attrs) => {
                    declared.insert(t.ident.to_string(), (file.path.clone(), t.items.len()));
                }
                syn::Item::Impl(i) => {
                    if let Some((_, path, _)) = &i.trait_ {
                        let name = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                        implemented.push((name, file.path.clone()));
                    }
                }
                _ => {}
            }
        }
    }
    let methods: usize = declared.values().map(|(_, n)| n).sum();
    println!("upcalls: {} traits of net/ with {methods} methods: {:?}", declared.len(), declared.keys());
    assert!(!declared.is_empty(), "the upcall traits of net/ were not found");
    for (name, (declaring, _)) in &declared {
        let impls: Vec<&String> = implemented.iter().filter(|(n, _)| n == name).map(|(_, f)| f).collect();
        assert_eq!(
            impls,
            vec!["net/run.rs"],
            "{name} (declared in {declaring}) must be implemented by the router, once"
        );
    }
}

/// The layer table's unit of a module path, and the unit's layer.
fn unit_of(module: &[String]) -> Option<(&'static str, u8)> {
    let joined = module.join("::");
    LAYERS
        .iter()
        .filter(|(unit, _)| joined == *unit || joined.starts_with(&format!("{unit}::")))
        .max_by_key(|(unit, _)| unit.len())
        .copied()
}

/// One compiled source file of the library.
struct SourceFile {
    /// Relative to `src/`, for messages.
    path: String,
    /// Its module path, without `crate`.
    module: Vec<String>,
    ast: syn::File,
}

/// Every non-test source file, and the module paths that exist.
struct Core {
    files: Vec<SourceFile>,
}

impl Core {
    fn read() -> Core {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        let mut pending = vec![(src.join("lib.rs"), Vec::<String>::new())];
        while let Some((path, module)) = pending.pop() {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let dir = children_dir(&path);
            for item in &ast.items {
                if let syn::Item::Mod(m) = item {
                    if m.content.is_none() && !is_test_only(&m.attrs) {
                        let name = m.ident.to_string();
                        let mut child = module.clone();
                        child.push(name.clone());
                        let flat = dir.join(format!("{name}.rs"));
                        let nested = dir.join(&name).join("mod.rs");
                        let file = if flat.exists() { flat } else { nested };
                        pending.push((file, child));
                    }
                }
            }
            let rel = path.strip_prefix(&src).unwrap_or(&path).display().to_string();
            files.push(SourceFile { path: rel, module, ast });
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Core { files }
    }

    fn figures(&self) -> Figures {
        let modules: BTreeSet<Vec<String>> = self.files.iter().map(|f| f.module.clone()).collect();
        let scans: Vec<Scan> = self.files.iter().map(|f| Scan::of(f, &modules)).collect();

        let mut unplaced = BTreeSet::new();
        let mut upward = Vec::new();
        let mut unit_edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (file, scan) in self.files.iter().zip(&scans) {
            if file.module.is_empty() {
                continue; // the crate root declares the modules and re-exports the error type
            }
            let Some((from_unit, from_layer)) = unit_of(&file.module) else {
                unplaced.insert(file.module.join("::"));
                continue;
            };
            unit_edges.entry(from_unit).or_default();
            for r in &scan.references {
                let Some((to_unit, to_layer)) = unit_of(&r.target) else {
                    unplaced.insert(r.target.join("::"));
                    continue;
                };
                if to_unit != from_unit {
                    unit_edges.entry(from_unit).or_default().insert(to_unit);
                }
                if to_layer > from_layer {
                    upward.push(format!(
                        "  {}:{}: {} (layer {from_layer}) names crate::{} (layer {to_layer})",
                        file.path,
                        r.line,
                        from_unit,
                        r.target.join("::")
                    ));
                }
            }
        }
        let unit_cycles = cycles(&unit_edges).into_iter().map(|c| c.iter().map(|u| u.to_string()).collect()).collect();

        // The file graph: references resolved to the file of their longest module prefix,
        // and calls to functions defined in exactly one file.
        let file_of: BTreeMap<&Vec<String>, &str> = self.files.iter().map(|f| (&f.module, f.path.as_str())).collect();
        let mut definers: BTreeMap<&(String, String), BTreeSet<&str>> = BTreeMap::new();
        for (file, scan) in self.files.iter().zip(&scans) {
            for method in &scan.defined {
                definers.entry(method).or_default().insert(file.path.as_str());
            }
        }
        let mut file_edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (file, scan) in self.files.iter().zip(&scans) {
            let from = file.path.as_str();
            let edges = file_edges.entry(from).or_default();
            for r in scan.references.iter().filter(|r| !r.reexport) {
                let target = (0..=r.target.len()).rev().find_map(|n| file_of.get(&r.target[..n].to_vec()));
                if let Some(&to) = target {
                    if to != from {
                        edges.insert(to);
                    }
                }
            }
            for call in &scan.calls {
                if let Some(files) = definers.get(call) {
                    if files.len() == 1 {
                        let to = *files.iter().next().unwrap();
                        if to != from {
                            edges.insert(to);
                        }
                    }
                }
            }
        }
        let mut file_cycles: Vec<Vec<String>> =
            cycles(&file_edges).into_iter().map(|c| c.iter().map(|f| f.to_string()).collect()).collect();
        file_cycles.sort_by_key(|c| std::cmp::Reverse(c.len()));
        let file_edge_count = file_edges.values().map(BTreeSet::len).sum();
        if let Ok(prefix) = std::env::var("ATMSIM_LAYERS_EDGES") {
            for (from, tos) in &file_edges {
                if from.starts_with(&prefix) {
                    let inside: Vec<&&str> = tos.iter().filter(|t| t.starts_with(&prefix)).collect();
                    println!("  edges {from} -> {inside:?}");
                }
            }
        }

        // Reads of another unit's `pub` fields: a field name declared in exactly one unit, `pub`
        // there (so the read is surely of that unit's struct), read in a different unit. A
        // field of records only (module docs) is counted apart.
        let mutated: BTreeSet<&str> = scans.iter().flat_map(|s| s.mutated.iter().map(String::as_str)).collect();
        let mut owners: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut public: BTreeSet<&str> = BTreeSet::new();
        let mut of_owner: BTreeSet<&str> = BTreeSet::new();
        for (file, scan) in self.files.iter().zip(&scans) {
            if let Some((unit, _)) = unit_of(&file.module) {
                for (f, is_pub, st) in &scan.fields {
                    owners.entry(f.as_str()).or_default().insert(unit);
                    if *is_pub {
                        public.insert(f.as_str());
                    }
                    if !scan.record_like.contains(st) || mutated.contains(st.as_str()) {
                        of_owner.insert(f.as_str());
                    }
                }
            }
        }
        owners.retain(|f, o| o.len() == 1 && public.contains(f));
        let mut field_reads_across = 0;
        let mut record_reads_across = 0;
        let mut fields_read_across = BTreeSet::new();
        let mut by_pair: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        for (file, scan) in self.files.iter().zip(&scans) {
            let Some((unit, _)) = unit_of(&file.module) else { continue };
            for f in &scan.field_reads {
                if let Some(o) = owners.get(f.as_str()) {
                    let owner = *o.iter().next().unwrap();
                    if owner != unit {
                        if !of_owner.contains(f.as_str()) {
                            record_reads_across += 1;
                            continue;
                        }
                        if std::env::var("ATMSIM_LAYERS_FIELDS").is_ok_and(|v| v == format!("{unit}>{owner}")) {
                            println!("  {} reads {owner}::{f}", file.path);
                        }
                        *by_pair.entry((unit, owner)).or_default() += 1;
                        field_reads_across += 1;
                        fields_read_across.insert(format!("{owner}::{f}"));
                    }
                }
            }
        }

        if std::env::var("ATMSIM_LAYERS_FIELDS").is_ok() {
            for ((reader, owner), n) in &by_pair {
                println!("  {reader} reads {n} pub fields of {owner}");
            }
        }

        Figures {
            field_reads_across,
            record_reads_across,
            fields_read_across: fields_read_across.len(),
            unplaced: unplaced.into_iter().collect(),
            upward,
            unit_cycles,
            file_cycles,
            files: self.files.len(),
            file_edge_count,
        }
    }
}

/// What the layer test measured.
struct Figures {
    /// Reads of a `pub` field from another unit than the one declaring it (lower bound: a
    /// field name declared in several units is left out), and how many fields they read.
    field_reads_across: usize,
    fields_read_across: usize,
    /// Reads of a record's field from another unit.
    record_reads_across: usize,
    unplaced: Vec<String>,
    upward: Vec<String>,
    unit_cycles: Vec<Vec<String>>,
    /// Groups of files that reach each other, largest first.
    file_cycles: Vec<Vec<String>>,
    files: usize,
    file_edge_count: usize,
}

impl Figures {
    fn report(&self) -> String {
        let mut s = String::new();
        let largest = self.file_cycles.first().map_or(0, Vec::len);
        let _ = writeln!(
            s,
            "layers: {} upward references, {} unit cycles, largest file cycle {} files ({} files, {} file edges)",
            self.upward.len(),
            self.unit_cycles.len(),
            largest,
            self.files,
            self.file_edge_count
        );
        let _ = writeln!(
            s,
            "  owners' pub fields read from another unit: {} reads of {} fields (and {} reads of records' fields)",
            self.field_reads_across, self.fields_read_across, self.record_reads_across
        );
        for u in &self.upward {
            let _ = writeln!(s, "{u}");
        }
        for c in &self.unit_cycles {
            let _ = writeln!(s, "  unit cycle: {}", c.join(", "));
        }
        for c in self.file_cycles.iter().filter(|c| c.len() > 2) {
            let _ = writeln!(s, "  file cycle ({}): {}", c.len(), c.join(", "));
        }
        s
    }
}

/// A reference to a module path, at a line of its file.
struct Reference {
    target: Vec<String>,
    line: usize,
    /// From a `pub use`: a re-export, which names the module but does not use it.
    reexport: bool,
}

/// What one file references, calls and defines, outside tests.
struct Scan {
    references: Vec<Reference>,
    /// Methods called on a known type: `self.f(..)` and `Self::f(..)` in an `impl T`, `T::f(..)`.
    calls: Vec<(String, String)>,
    /// Methods defined in an `impl T`: (T, f).
    defined: BTreeSet<(String, String)>,
    /// The fields of the structs it declares: (name, whether visible beyond their module,
    /// the struct's name).
    fields: BTreeSet<(String, bool, String)>,
    /// Names of the fields it reads (`x.name`).
    field_reads: Vec<String>,
    /// The structs it declares that could be records (module docs): they derive `Clone` and
    /// every field is visible beyond their module.
    record_like: BTreeSet<String>,
    /// Types with an inherent method taking `&mut self` here.
    mutated: BTreeSet<String>,
}

impl Scan {
    fn of(file: &SourceFile, modules: &BTreeSet<Vec<String>>) -> Scan {
        let mut v = Visitor {
            modules,
            current: file.module.clone(),
            self_type: None,
            in_reexport: false,
            references: vec![],
            calls: vec![],
            defined: BTreeSet::new(),
            fields: BTreeSet::new(),
            field_reads: vec![],
            record_like: BTreeSet::new(),
            mutated: BTreeSet::new(),
            in_struct: None,
        };
        v.visit_file(&file.ast);
        Scan {
            references: v.references,
            calls: v.calls,
            defined: v.defined,
            fields: v.fields,
            field_reads: v.field_reads,
            record_like: v.record_like,
            mutated: v.mutated,
        }
    }
}

struct Visitor<'a> {
    modules: &'a BTreeSet<Vec<String>>,
    /// The module the visitor is in (inline modules included).
    current: Vec<String>,
    /// The type of the `impl` block the visitor is in.
    self_type: Option<String>,
    in_reexport: bool,
    references: Vec<Reference>,
    calls: Vec<(String, String)>,
    defined: BTreeSet<(String, String)>,
    fields: BTreeSet<(String, bool, String)>,
    field_reads: Vec<String>,
    record_like: BTreeSet<String>,
    mutated: BTreeSet<String>,
    /// The struct whose fields the visitor is in.
    in_struct: Option<String>,
}

impl Visitor<'_> {
    /// Resolves a path's leading segments to an absolute module path, if it names a module of
    /// this crate (`crate::`, `super::`, `self::` or a child module of the current one).
    fn resolve(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let mut base = match first.as_str() {
            "crate" => vec![],
            "self" => self.current.clone(),
            "super" => {
                let mut m = self.current.clone();
                m.pop()?;
                let mut rest = &segments[1..];
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop()?;
                    rest = &rest[1..];
                }
                let mut out = m;
                out.extend(rest.iter().cloned());
                return Some(out);
            }
            _ => {
                let mut child = self.current.clone();
                child.push(first.clone());
                if !self.modules.contains(&child) {
                    return None;
                }
                let mut out = child;
                out.extend(segments[1..].iter().cloned());
                return Some(out);
            }
        };
        base.extend(segments[1..].iter().cloned());
        Some(base)
    }

    fn reference(&mut self, segments: Vec<String>, line: usize) {
        if let Some(target) = self.resolve(&segments) {
            self.references.push(Reference { target, line, reexport: self.in_reexport });
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                if n.ident != "self" {
                    full.push(n.ident.to_string());
                }
                self.reference(full, n.ident.span().start().line);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                self.reference(full, r.ident.span().start().line);
            }
            syn::UseTree::Glob(g) => {
                self.reference(prefix.clone(), g.star_token.spans[0].start().line);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }
}

/// True for `#[cfg(test)]` and `#[test]` items.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test"))
    })
}

impl<'ast> Visit<'ast> for Visitor<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Struct(s) => &s.attrs,
            _ => &[],
        };
        if !is_test_only(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.current.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.current.pop();
        }
    }

    fn visit_item_struct(&mut self, st: &'ast syn::ItemStruct) {
        let name = st.ident.to_string();
        let clone = st.attrs.iter().any(|a| {
            let mut found = false;
            if a.path().is_ident("derive") {
                let _ = a.parse_nested_meta(|m| {
                    found |= m.path.is_ident("Clone");
                    Ok(())
                });
            }
            found
        });
        let all_pub = st.fields.iter().all(|f| !matches!(f.vis, syn::Visibility::Inherited));
        if clone && all_pub {
            self.record_like.insert(name.clone());
        }
        let outer = self.in_struct.replace(name);
        syn::visit::visit_item_struct(self, st);
        self.in_struct = outer;
    }

    fn visit_field(&mut self, f: &'ast syn::Field) {
        if let Some(name) = &f.ident {
            // An enum variant's fields (no struct) are read only by matching.
            let public = !matches!(f.vis, syn::Visibility::Inherited);
            self.fields.insert((name.to_string(), public, self.in_struct.clone().unwrap_or_default()));
        }
        syn::visit::visit_field(self, f);
    }

    fn visit_expr_field(&mut self, e: &'ast syn::ExprField) {
        if let syn::Member::Named(name) = &e.member {
            self.field_reads.push(name.to_string());
        }
        syn::visit::visit_expr_field(self, e);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.in_reexport = matches!(u.vis, syn::Visibility::Public(_));
        self.use_tree(&mut vec![], &u.tree);
        self.in_reexport = false;
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        let outer = self.self_type.take();
        if let syn::Type::Path(t) = &*i.self_ty {
            self.self_type = t.path.segments.last().map(|s| s.ident.to_string());
        }
        // Trait impls define methods every implementor shares a name for: not one file's.
        if i.trait_.is_some() {
            self.self_type = None;
        }
        syn::visit::visit_item_impl(self, i);
        self.self_type = outer;
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            let segments = p.segments.iter().map(|s| s.ident.to_string()).collect();
            self.reference(segments, p.segments[0].ident.span().start().line);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            if let Some(t) = &self.self_type {
                self.defined.insert((t.clone(), f.sig.ident.to_string()));
                let by_mut = f.sig.receiver().is_some_and(|r| r.reference.is_some() && r.mutability.is_some());
                if by_mut {
                    self.mutated.insert(t.clone());
                }
            }
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_expr_method_call(&mut self, c: &'ast syn::ExprMethodCall) {
        let on_self = matches!(&*c.receiver, syn::Expr::Path(p) if p.path.is_ident("self"));
        if let (true, Some(t)) = (on_self, &self.self_type) {
            self.calls.push((t.clone(), c.method.to_string()));
        }
        syn::visit::visit_expr_method_call(self, c);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let n = p.path.segments.len();
            if n >= 2 {
                let ty = p.path.segments[n - 2].ident.to_string();
                let ty = if ty == "Self" { self.self_type.clone() } else { Some(ty) };
                if let Some(ty) = ty {
                    self.calls.push((ty, p.path.segments[n - 1].ident.to_string()));
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
}

/// The directory a file's child modules live in.
fn children_dir(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name == "lib.rs" || name == "mod.rs" {
        path.parent().unwrap().to_path_buf()
    } else {
        path.with_extension("")
    }
}

/// The strongly connected groups of two or more nodes (Tarjan's algorithm, iterative order
/// by the map's sorted keys so the output is stable).
fn cycles<'a>(edges: &BTreeMap<&'a str, BTreeSet<&'a str>>) -> Vec<Vec<&'a str>> {
    struct Tarjan<'a, 'e> {
        edges: &'e BTreeMap<&'a str, BTreeSet<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<&'a str>>,
    }
    impl<'a> Tarjan<'a, '_> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            let next: Vec<&'a str> = self.edges.get(v).map(|s| s.iter().copied().collect()).unwrap_or_default();
            for w in next {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort_unstable();
                    self.out.push(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        on_stack: BTreeSet::new(),
        out: vec![],
    };
    for &v in edges.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out
}
