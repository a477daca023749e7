//! No module cycles inside a crate (issue 17): the top-level modules of each crate in
//! [`CRATES`] form a graph by their `crate::X` references (`use` lines and paths, comments
//! left out), and that graph must have no cycle. A cycle is named module by module.
//!
//! [`KNOWN_BACK_EDGES`] lists the references that still close a cycle, each with the reason,
//! so that the list can only shrink: a listed reference that is gone fails the test too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates checked, by their directory under the workspace root (their code in `src/`).
/// Other crates join as their cycles are broken.
const CRATES: &[&str] =
    &["server", "protocol", "client", "sim", "verifier", "rules", "ledger", "cli"];

/// References `(crate, from, to)` that still close a cycle: left out of the graph, and each
/// must still exist (remove it from here once it is gone). Empty: no crate has a cycle left.
///
/// How the last ones were broken (issue 17):
///
/// `server`'s domain modules (`lobby`, `live`, `tournament`, `ledger`) used `state` (their
/// services took `&Shared`, their handlers `State<Arc<Shared>>`) while `state` held their
/// data. Each was split: its data and rules stay below `state`, given what they need as
/// arguments or small traits (`ledger::LedgerHost`, as `auth::NameBook`); its services moved to
/// `services::{lobby, live, tournament}` and its HTTP handlers to `http::ledger`, above
/// `state`. `witnessing` → `ledger` (a round asked the `ServerLedger` for its checkpoint) is
/// a trait now, `witnessing::CosignedLog`, which the ledger implements. `store` → `commit` was
/// test code only: the cluster test that drives the real group committer over two nodes' stores
/// is a test of `commit` now, on the storage suite's helpers.
///
/// `protocol`'s cycle (record → relay → coordinator → terms → record) was broken by defining
/// `Entry` in `record` and `MAX_RECORD_BYTES` in `terms`, their old paths re-exported.
///
/// `client`'s `lichess` → `local` (lichess's names read the local API's `Status` and typed
/// `variant` and player objects) was broken by moving those types to `api_types`, below both
/// (still `local::types` by re-export); the constructors that need lichess's names are in
/// `lichess`.
const KNOWN_BACK_EDGES: &[(&str, &str, &str)] = &[];

type Graph = BTreeMap<String, BTreeSet<String>>;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None`: the crate root).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let first = rel.components().next()?.as_os_str().to_string_lossy().to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
    (!matches!(name.as_str(), "lib" | "main")).then_some(name)
}

/// The identifier at the start of `s`.
fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The first path segments after `crate::` in `code`: `crate::a::b` gives `a`,
/// `crate::{a, b::{c}}` gives `a` and `b`. Lines that are comments are left out.
fn references(code: &str) -> BTreeSet<String> {
    let code: String =
        code.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let mut out = BTreeSet::new();
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        // `crate::` must start a path (not `fogproof_crate::`, say).
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let after = rest.trim_start();
        if let Some(group) = after.strip_prefix('{') {
            // The group's top-level items, up to its closing brace.
            let (mut depth, mut item_start) = (0usize, true);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        item_start = false;
                        let name = ident(&group[j..]);
                        if !name.is_empty() && name != "self" {
                            out.insert(name.to_owned());
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(after);
            if !name.is_empty() {
                out.insert(name.to_owned());
            }
        }
    }
    out
}

/// The module graph of one crate: top-level module to the top-level modules it references
/// (references to itself, to the crate root's items and to unknown names left out).
fn crate_graph(dir: &str) -> Graph {
    let src = workspace_root().join(dir).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let modules: BTreeSet<String> = files.iter().filter_map(|f| module_of(&src, f)).collect();
    let mut graph = Graph::new();
    for file in &files {
        let Some(from) = module_of(&src, file) else { continue };
        let code = std::fs::read_to_string(file).expect("a source file reads");
        let to = graph.entry(from.clone()).or_default();
        to.extend(references(&code).into_iter().filter(|m| *m != from && modules.contains(m)));
    }
    graph
}

/// Every cycle's modules (the strongly connected components of more than one module, by
/// Tarjan's algorithm), each as a path `a -> b -> ... -> a` through the graph.
fn cycles(graph: &Graph) -> Vec<String> {
    struct Tarjan<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<BTreeSet<&'g str>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.insert(w);
                    if w == v {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            // One cycle through the component's smallest module: a shortest way back to it.
            let start = *c.iter().next().expect("not empty");
            let mut back: BTreeMap<&str, &str> = BTreeMap::new();
            let mut queue = std::collections::VecDeque::from([start]);
            let mut end = None;
            'search: while let Some(v) = queue.pop_front() {
                for w in graph.get(v).into_iter().flatten() {
                    let w = w.as_str();
                    if w == start {
                        end = Some(v);
                        break 'search;
                    }
                    if c.contains(w) && !back.contains_key(w) {
                        back.insert(w, v);
                        queue.push_back(w);
                    }
                }
            }
            let mut path = vec![start];
            let mut v = end.expect("a component of a cycle leads back");
            while v != start {
                path.push(v);
                v = back[v];
            }
            path[1..].reverse();
            path.push(start);
            format!(
                "{} (all of: {})",
                path.join(" -> "),
                c.into_iter().collect::<Vec<_>>().join(", ")
            )
        })
        .collect()
}

#[test]
fn no_crate_has_a_module_cycle() {
    let mut problems = Vec::new();
    for dir in CRATES {
        let mut graph = crate_graph(dir);
        for (c, from, to) in KNOWN_BACK_EDGES.iter().filter(|(c, ..)| c == dir) {
            let removed = graph.get_mut(*from).is_some_and(|t| t.remove(*to));
            if !removed {
                problems.push(format!(
                    "{c}: {from} no longer uses {to}: remove it from KNOWN_BACK_EDGES"
                ));
            }
        }
        // `sim` has three modules (selfplay, loadtest, measure); the others many more.
        assert!(graph.len() >= 3, "{dir}: too few modules found ({graph:?}): is the path right?");
        problems.extend(cycles(&graph).into_iter().map(|cycle| format!("{dir}: {cycle}")));
    }
    assert!(problems.is_empty(), "module cycles:\n  {}", problems.join("\n  "));
}

fn graph_of(edges: &[(&str, &str)]) -> Graph {
    let mut g = Graph::new();
    for (a, b) in edges {
        g.entry((*a).to_owned()).or_default().insert((*b).to_owned());
        g.entry((*b).to_owned()).or_default();
    }
    g
}

#[test]
fn a_cycle_is_found_and_named() {
    // http -> lobby -> state -> lobby, and api -> auth -> api; tournament hangs below.
    let g = graph_of(&[
        ("http", "lobby"),
        ("lobby", "state"),
        ("state", "lobby"),
        ("lobby", "tournament"),
        ("api", "auth"),
        ("auth", "api"),
    ]);
    let found = cycles(&g);
    assert_eq!(
        found,
        vec![
            "api -> auth -> api (all of: api, auth)",
            "lobby -> state -> lobby (all of: lobby, state)"
        ]
    );
    // A longer one is walked in order.
    let g = graph_of(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]);
    assert_eq!(cycles(&g), vec!["a -> b -> c -> a (all of: a, b, c)"]);
    // Layers without a way back: none.
    let g =
        graph_of(&[("http", "lobby"), ("http", "state"), ("lobby", "state"), ("state", "store")]);
    assert!(cycles(&g).is_empty());
}

#[test]
fn references_read_use_groups_and_paths_but_not_comments() {
    let code = "use crate::{admission::{Admit, lock}, self, store::Store};\n\
                use crate::live::MatchTask;\n\
                /// [`crate::ledger::proof`]\n\
                // crate::web\n\
                fn f() { crate::metrics::counter(); let x = my_crate::tournament::X; }\n\
                pub(crate) fn g() {}";
    let got: Vec<String> = references(code).into_iter().collect();
    assert_eq!(got, ["admission", "live", "metrics", "store"]);
}
