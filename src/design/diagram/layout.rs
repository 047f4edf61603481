//! Where the class diagram's boxes and arrows go on a character grid.
//!
//! The layered (Sugiyama) placement, layering, crossing reduction and coordinate
//! assignment, comes from `ascii-dag`, which places boxes of a declared size in
//! terminal cells. This module decides what goes into it and reads its answer back
//! as owned geometry:
//!
//! - which way each relationship points in the layers (parent, whole and source on
//!   top, as UML and Mermaid draw them), with cycles broken here so that every edge
//!   can ask for its own port on each box, and so its own arrowhead;
//! - the size and text of each class box (annotations, name, attributes, methods);
//! - every route, from [`super::tracks`]: an axis-aligned polyline from a cell on one
//!   box's border to a cell on the other's that shares no cell run with any other
//!   route, or, where the tracks ran out, a stub on each box tagged alike; the heads
//!   at its ends, its stroke, its label placed where it covers no box, head or other
//!   label.

use std::collections::HashMap;

use ascii_dag::ir::NodeKind;
use ascii_dag::{CustomNode, Graph, PortBound, PortPolicy, PortSide};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::budget::{Budget, Refusal};
use super::tracks::{self, Net, Routed};
use crate::design::model::mermaid::{ClassDiagram, DiagramClass, Head, MemberKind, RelationKind};

/// Longest text (class name, member, label) drawn, in cells; longer text ends in `…`.
const MAX_TEXT: usize = 48;

/// A cell on the grid: column, row.
pub type Cell = (usize, usize);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub x: usize,
    pub y: usize,
    pub width: usize,
    pub height: usize,
}

impl Rect {
    /// One past the last column.
    pub fn right(&self) -> usize {
        self.x + self.width
    }

    /// One past the last row.
    pub fn bottom(&self) -> usize {
        self.y + self.height
    }

    pub fn contains(&self, (x, y): Cell) -> bool {
        x >= self.x && x < self.right() && y >= self.y && y < self.bottom()
    }

    /// True for a cell of the outline (where a box draws its border).
    pub fn on_border(&self, cell: Cell) -> bool {
        self.contains(cell)
            && (cell.0 == self.x
                || cell.0 + 1 == self.right()
                || cell.1 == self.y
                || cell.1 + 1 == self.bottom())
    }

    pub fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.right()
            && other.x < self.right()
            && self.y < other.bottom()
            && other.y < self.bottom()
    }
}

/// One row inside a class box, top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxLine<'a> {
    /// `«interface»` above the name.
    Annotation(&'a str),
    Name(&'a str),
    /// The rule between the name and a compartment of members.
    Separator,
    Member(&'a str),
}

/// A class drawn as a box: name, then attributes, then methods, as Mermaid does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassBox {
    /// Index of the class in the diagram.
    pub class: usize,
    pub rect: Rect,
    pub name: String,
    pub annotations: Vec<String>,
    pub attributes: Vec<String>,
    pub methods: Vec<String>,
}

impl ClassBox {
    fn new(index: usize, class: &DiagramClass) -> ClassBox {
        let member = |kind: MemberKind| {
            class
                .members
                .iter()
                .filter(|m| m.kind == kind)
                .map(|m| {
                    let mut text = String::new();
                    text.extend(m.visibility);
                    text.push_str(&generics(&m.text));
                    fit(&text)
                })
                .collect::<Vec<_>>()
        };
        let mut b = ClassBox {
            class: index,
            rect: Rect {
                x: 0,
                y: 0,
                width: 0,
                height: 0,
            },
            name: fit(&class.name),
            annotations: class
                .annotations
                .iter()
                .map(|a| fit(&format!("«{a}»")))
                .collect(),
            attributes: member(MemberKind::Attribute),
            methods: member(MemberKind::Method),
        };
        let lines = b.lines();
        let rows = lines.len();
        let text = lines
            .iter()
            .map(|l| match l {
                BoxLine::Annotation(t) | BoxLine::Name(t) | BoxLine::Member(t) => t.width(),
                BoxLine::Separator => 0,
            })
            .max()
            .unwrap_or(0);
        b.rect.width = text.max(1) + 4;
        b.rect.height = rows + 2;
        b
    }

    /// The rows between the top and bottom borders.
    pub fn lines(&self) -> Vec<BoxLine<'_>> {
        let mut lines: Vec<BoxLine<'_>> = self
            .annotations
            .iter()
            .map(|a| BoxLine::Annotation(a))
            .collect();
        lines.push(BoxLine::Name(&self.name));
        for compartment in [&self.attributes, &self.methods] {
            if !compartment.is_empty() {
                lines.push(BoxLine::Separator);
                lines.extend(compartment.iter().map(|m| BoxLine::Member(m)));
            }
        }
        lines
    }
}

/// How a relationship's line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stroke {
    Solid,
    /// Dependency, realization and `..` links.
    Dashed,
}

/// The mark at one end of a relationship.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadShape {
    /// Inheritance and realization: a hollow triangle at the parent.
    Triangle,
    /// Composition: a filled diamond at the whole.
    FilledDiamond,
    /// Aggregation: a hollow diamond at the whole.
    HollowDiamond,
    /// Association and dependency: an open arrowhead at the target.
    Arrow,
}

/// Which way a head points: toward the box it touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Toward {
    Up,
    Down,
    Left,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeEnd {
    /// Index of the class (and its box) at this end.
    pub class: usize,
    pub head: Option<HeadShape>,
}

/// Text placed on the grid, one row, `text.width()` cells wide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub text: String,
    pub x: usize,
    pub y: usize,
}

impl Label {
    pub fn rect(&self) -> Rect {
        Rect {
            x: self.x,
            y: self.y,
            width: self.text.width().max(1),
            height: 1,
        }
    }
}

/// How a relationship's line goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Path {
    /// Axis-aligned polyline: the first cell is on `start`'s box border, the last on
    /// `end`'s, each pair of neighbours shares a row or a column. No other edge runs
    /// along any of its cells; another may only cross it.
    Line(Vec<Cell>),
    /// The tracks ran out: a stub out of each box (`start` from the start box's
    /// border, `end` to the end box's), each with a tag, `#n` and the class at the
    /// other end, so the two ends can be matched.
    Cut {
        start: Vec<Cell>,
        end: Vec<Cell>,
        /// At the start, naming the end class (and the relationship's label, if it
        /// has one); at the end, naming the start class.
        tags: [Label; 2],
    },
}

/// One relationship between two different classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRoute {
    /// Index of the relationship in the diagram.
    pub relation: usize,
    pub kind: RelationKind,
    pub stroke: Stroke,
    pub path: Path,
    pub start: EdgeEnd,
    pub end: EdgeEnd,
    pub label: Option<Label>,
}

impl EdgeRoute {
    /// The polylines drawn: one for a line, the two stubs of a cut edge.
    pub fn lines(&self) -> impl Iterator<Item = &[Cell]> + '_ {
        let (a, b): (&[Cell], &[Cell]) = match &self.path {
            Path::Line(points) => (points, &[]),
            Path::Cut { start, end, .. } => (start, end),
        };
        [a, b].into_iter().filter(|l| !l.is_empty())
    }

    /// The tags of a cut edge (none for a line).
    pub fn tags(&self) -> impl Iterator<Item = &Label> + '_ {
        match &self.path {
            Path::Line(_) => None,
            Path::Cut { tags, .. } => Some(tags.iter()),
        }
        .into_iter()
        .flatten()
    }

    /// The first cell of the drawing, on the start box's border, and the last, on
    /// the end box's.
    pub fn ends(&self) -> Option<(Cell, Cell)> {
        let (first, last) = match &self.path {
            Path::Line(points) => (points, points),
            Path::Cut { start, end, .. } => (start, end),
        };
        Some((*first.first()?, *last.last()?))
    }

    /// The heads to draw: shape, the cell just outside the box, the way it points.
    pub fn heads(&self) -> impl Iterator<Item = (HeadShape, Cell, Toward)> + '_ {
        let (first, last): (&[Cell], &[Cell]) = match &self.path {
            Path::Line(points) => (points, points),
            Path::Cut { start, end, .. } => (start, end),
        };
        let start = self.start.head.zip(match first {
            [a, b, ..] => step(*a, *b),
            _ => None,
        });
        let end = self.end.head.zip(match last {
            [.., b, a] => step(*a, *b),
            _ => None,
        });
        start
            .into_iter()
            .chain(end)
            .map(|(shape, (cell, toward))| (shape, cell, toward))
    }
}

/// The cell one step from `anchor` toward `next`, and the way back to the anchor.
fn step(anchor: Cell, next: Cell) -> Option<(Cell, Toward)> {
    let (x, y) = anchor;
    if next.1 > y {
        Some(((x, y + 1), Toward::Up))
    } else if next.1 < y {
        Some(((x, y - 1), Toward::Down))
    } else if next.0 > x {
        Some(((x + 1, y), Toward::Left))
    } else if next.0 < x {
        Some(((x - 1, y), Toward::Right))
    } else {
        None
    }
}

/// A relationship of a class with itself: a `↺` beside its box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfLoop {
    pub relation: usize,
    pub class: usize,
    /// `↺`, then the label if there is one.
    pub mark: Label,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiagramLayout {
    /// Columns and rows the drawing takes.
    pub width: usize,
    pub height: usize,
    /// One box per class, in the diagram's order.
    pub boxes: Vec<ClassBox>,
    pub edges: Vec<EdgeRoute>,
    pub loops: Vec<SelfLoop>,
}

/// Mermaid writes `List~Book~` for `List<Book>`; the box shows the angle brackets.
fn generics(text: &str) -> String {
    let pairs = text.matches('~').count() / 2 * 2;
    let mut open = true;
    let mut seen = 0;
    text.chars()
        .map(|c| {
            if c != '~' || seen == pairs {
                return c;
            }
            seen += 1;
            open = !open;
            if open { '>' } else { '<' }
        })
        .collect()
}

/// Text drawn in a box or on an edge: control characters blanked, at most
/// [`MAX_TEXT`] cells.
fn fit(text: &str) -> String {
    let mut out = String::new();
    let mut width = 0;
    let total = text.width();
    for c in text.chars() {
        let c = if c.is_control() { ' ' } else { c };
        let w = c.width().unwrap_or(0);
        if total > MAX_TEXT && width + w > MAX_TEXT - 1 {
            out.push('…');
            break;
        }
        width += w;
        out.push(c);
    }
    out
}

/// A relationship as the layers see it: the class drawn above, the one below, and
/// the head at each of them.
struct Oriented {
    relation: usize,
    upper: usize,
    lower: usize,
    upper_head: Option<HeadShape>,
    lower_head: Option<HeadShape>,
}

fn head_shape(kind: RelationKind) -> Option<HeadShape> {
    match kind {
        RelationKind::Inheritance | RelationKind::Realization => Some(HeadShape::Triangle),
        RelationKind::Composition => Some(HeadShape::FilledDiamond),
        RelationKind::Aggregation => Some(HeadShape::HollowDiamond),
        RelationKind::Association | RelationKind::Dependency => Some(HeadShape::Arrow),
        RelationKind::Link | RelationKind::DashedLink => None,
    }
}

fn stroke(kind: RelationKind) -> Stroke {
    match kind {
        RelationKind::Dependency | RelationKind::Realization | RelationKind::DashedLink => {
            Stroke::Dashed
        }
        _ => Stroke::Solid,
    }
}

/// Parents, wholes and sources go on top: the marked end is the upper one for
/// inheritance, realization, composition and aggregation, the lower one for
/// association and dependency; otherwise the left class is on top.
fn orient(relation: usize, left: usize, right: usize, kind: RelationKind, head: Head) -> Oriented {
    let shape = head_shape(kind);
    let (left_head, right_head) = match head {
        Head::Left => (shape, None),
        Head::Right => (None, shape),
        Head::Both => (shape, shape),
        Head::Neither => (None, None),
    };
    let marked_on_top = !matches!(kind, RelationKind::Association | RelationKind::Dependency);
    let left_on_top = match head {
        Head::Left => marked_on_top,
        Head::Right => !marked_on_top,
        Head::Both | Head::Neither => true,
    };
    if left_on_top {
        Oriented {
            relation,
            upper: left,
            lower: right,
            upper_head: left_head,
            lower_head: right_head,
        }
    } else {
        Oriented {
            relation,
            upper: right,
            lower: left,
            upper_head: right_head,
            lower_head: left_head,
        }
    }
}

/// Indices (into `edges`) of the edges a depth-first search finds going back to a
/// class on its path; turning them over leaves the layers without a cycle.
fn back_edges(classes: usize, edges: &[Oriented]) -> Vec<bool> {
    let mut out_edges: Vec<Vec<usize>> = vec![Vec::new(); classes];
    for (i, e) in edges.iter().enumerate() {
        out_edges[e.upper].push(i);
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; classes];
    let mut back = vec![false; edges.len()];
    for root in 0..classes {
        if mark[root] != Mark::New {
            continue;
        }
        mark[root] = Mark::OnPath;
        let mut stack = vec![(root, 0usize)];
        while let Some(top) = stack.last_mut() {
            let (node, next) = *top;
            let Some(&edge) = out_edges[node].get(next) else {
                mark[node] = Mark::Done;
                stack.pop();
                continue;
            };
            top.1 += 1;
            let to = edges[edge].lower;
            match mark[to] {
                Mark::New => {
                    mark[to] = Mark::OnPath;
                    stack.push((to, 0));
                }
                Mark::OnPath => back[edge] = true,
                Mark::Done => {}
            }
        }
    }
    back
}

/// The drawing of `diagram`, with no limit on its size or time (tests, benchmarks).
pub fn layout(diagram: &ClassDiagram) -> DiagramLayout {
    layout_within(diagram, &Budget::unlimited()).unwrap_or_default()
}

/// The drawing of `diagram`: boxes that never overlap, and each relationship
/// between two classes routed on its own ports, lanes and tracks, or cut and tagged
/// alike at both ends where the tracks run out. Works on whatever the parser
/// recognised, so a diagram with a syntax fault still draws what it has. Refused,
/// with the reason, when the diagram is over `budget`'s size or the work over its
/// time.
pub fn layout_within(diagram: &ClassDiagram, budget: &Budget) -> Result<DiagramLayout, Refusal> {
    budget.admit(diagram.classes.len(), diagram.relations.len())?;
    let boxes: Vec<ClassBox> = diagram
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| ClassBox::new(i, c))
        .collect();
    if boxes.is_empty() {
        return Ok(DiagramLayout::default());
    }
    let index: HashMap<&str, usize> = diagram
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| (c.name.as_str(), i))
        .collect();
    let mut oriented = Vec::new();
    let mut self_relations = Vec::new();
    for (r, rel) in diagram.relations.iter().enumerate() {
        let (Some(&left), Some(&right)) =
            (index.get(rel.left.as_str()), index.get(rel.right.as_str()))
        else {
            continue;
        };
        if left == right {
            self_relations.push((r, left));
        } else {
            oriented.push(orient(r, left, right, rel.kind, rel.head));
        }
    }
    budget.check()?;
    let back = back_edges(boxes.len(), &oriented);
    let labels: Vec<Option<String>> = oriented
        .iter()
        .map(|o| diagram.relations[o.relation].label.as_deref().map(fit))
        .collect();

    let ends: Vec<(usize, usize)> = oriented
        .iter()
        .zip(&back)
        .map(|(o, &back)| {
            if back {
                (o.lower, o.upper)
            } else {
                (o.upper, o.lower)
            }
        })
        .collect();
    // A box is wide enough for each line leaving or reaching it to have its own
    // cell on the face with a gap on either side, away from the corners.
    let mut faces = vec![(0usize, 0usize); boxes.len()];
    for &(from, to) in &ends {
        faces[from].0 += 1;
        faces[to].1 += 1;
    }
    let mut boxes = boxes;
    for (b, (out, into)) in boxes.iter_mut().zip(faces) {
        b.rect.width = b.rect.width.max(2 * out.max(into) + 3);
    }

    // ascii-dag places the boxes in layers (and a dummy per layer an edge passes);
    // its routes are not used: the tracks below give each edge its own.
    let mut graph = Graph::new();
    graph.set_port_policy(PortPolicy::Spread(PortBound::Face));
    for (b, class) in boxes.iter().zip(&diagram.classes) {
        graph.add_node(
            b.class,
            CustomNode {
                label: class.name.as_str(),
                width: b.rect.width,
                height: b.rect.height,
                painter: None,
                payload: "",
            },
        );
    }
    for (i, &(from, to)) in ends.iter().enumerate() {
        let _ = graph
            .add_edge(from, to, labels[i].as_deref())
            .from_port(PortSide::Downstream)
            .to_port(PortSide::Upstream);
    }
    let ir = graph.compute_layout();
    budget.check()?;

    let mut levels = vec![0usize; boxes.len()];
    let mut dummies: HashMap<(usize, usize), usize> = HashMap::new();
    for node in ir.nodes() {
        match (node.kind, node.edge_index) {
            (NodeKind::Dummy, Some(edge)) => {
                dummies.insert((edge, node.level), node.center_x);
            }
            (NodeKind::Dummy, None) => {}
            _ => {
                if let Some(b) = boxes.get_mut(node.id) {
                    b.rect.x = node.x;
                    b.rect.y = node.y;
                    levels[node.id] = node.level;
                }
            }
        }
    }
    let nets: Vec<Net> = ends
        .iter()
        .enumerate()
        .map(|(i, &(from, to))| Net {
            from,
            to,
            lanes: (levels[from] + 1..levels[to].max(levels[from] + 1))
                .map(|level| dummies.get(&(i, level)).copied())
                .collect(),
        })
        .collect();
    let routed = tracks::route(&mut boxes, &levels, &nets, budget)?;

    let mut cuts = 0;
    let edges: Vec<EdgeRoute> = oriented
        .iter()
        .zip(&ends)
        .zip(routed)
        .zip(labels)
        .map(|(((o, &(from, to)), routed), label)| {
            let end = |class: usize| EdgeEnd {
                class,
                head: if class == o.upper {
                    o.upper_head
                } else {
                    o.lower_head
                },
            };
            let mut path = match routed {
                Routed::Line(points) => Path::Line(points),
                Routed::Cut { upper, lower } => {
                    cuts += 1;
                    let tag = |other: usize| Label {
                        text: fit(&format!("#{cuts} {}", diagram.classes[other].name)),
                        x: 0,
                        y: 0,
                    };
                    Path::Cut {
                        tags: [tag(to), tag(from)],
                        start: upper,
                        end: lower,
                    }
                }
            };
            let kind = diagram.relations[o.relation].kind;
            // A cut edge's label goes with the tag at its start.
            let label = match &mut path {
                Path::Cut { tags, .. } => {
                    if let Some(text) = label {
                        tags[0].text = fit(&format!("{} · {text}", tags[0].text));
                    }
                    None
                }
                Path::Line(_) => label,
            };
            EdgeRoute {
                relation: o.relation,
                kind,
                stroke: stroke(kind),
                path,
                start: end(from),
                end: end(to),
                label: label.map(|text| Label { text, x: 0, y: 0 }),
            }
        })
        .collect();

    let mut drawing = DiagramLayout {
        width: 0,
        height: 0,
        boxes,
        edges,
        loops: Vec::new(),
    };
    drawing.fit_grid();
    place_labels(&mut drawing, &self_relations, diagram, budget)?;
    drawing.fit_grid();
    Ok(drawing)
}

impl DiagramLayout {
    /// Sets `width` and `height` to take in every box, route and label.
    fn fit_grid(&mut self) {
        let mut width = 0;
        let mut height = 0;
        let mut take = |r: Rect| {
            width = width.max(r.right());
            height = height.max(r.bottom());
        };
        for b in &self.boxes {
            take(b.rect);
        }
        for e in &self.edges {
            for line in e.lines() {
                for &(x, y) in line {
                    take(Rect {
                        x,
                        y,
                        width: 1,
                        height: 1,
                    });
                }
            }
            for l in e.label.iter().chain(e.tags()) {
                take(l.rect());
            }
        }
        for l in &self.loops {
            take(l.mark.rect());
        }
        self.width = width;
        self.height = height;
    }

    /// The box of class `class`.
    pub fn class_box(&self, class: usize) -> Option<&ClassBox> {
        self.boxes.get(class)
    }
}

/// Which cells are spoken for while labels are placed: boxes, heads and labels
/// (nothing may go on them), and lines (best left clear).
struct Occupancy {
    width: usize,
    cells: Vec<u8>,
}

const TAKEN: u8 = 1;
const LINE: u8 = 2;

impl Occupancy {
    fn new(width: usize, height: usize) -> Occupancy {
        Occupancy {
            width,
            cells: vec![0; width * height],
        }
    }

    fn mark(&mut self, r: &Rect, what: u8) {
        for y in r.y..r.bottom() {
            for x in r.x..r.right().min(self.width) {
                if let Some(c) = self.cells.get_mut(y * self.width + x) {
                    *c |= what;
                }
            }
        }
    }

    /// No cell of `r` is any of `what` (cells off the grid are free).
    fn free(&self, r: &Rect, what: u8) -> bool {
        (r.y..r.bottom()).all(|y| {
            (r.x..r.right()).all(|x| {
                x >= self.width
                    || self
                        .cells
                        .get(y * self.width + x)
                        .is_none_or(|c| c & what == 0)
            })
        })
    }
}

/// Where a label of `width` cells might go beside `legs`, nearest first: to the
/// right of a vertical leg with a blank cell between, to its left, above or below a
/// horizontal one.
fn spots(legs: &[Rect], width: usize) -> Vec<Cell> {
    let mut out = Vec::new();
    for r in legs {
        if r.width == 1 {
            for y in r.y..r.bottom() {
                out.push((r.x + 2, y));
                if let Some(x) = r.x.checked_sub(width + 1) {
                    out.push((x, y));
                }
            }
        } else {
            for x in r.x..r.right() {
                out.push((x, r.y + 1));
                if let Some(y) = r.y.checked_sub(1) {
                    out.push((x, y));
                }
            }
        }
    }
    out
}

/// Where a cut edge's tag might go: beside the stub's outer cell `(x, y)`, then on
/// the rows further from the box (`down` for a stub under its box).
fn tag_spots((x, y): Cell, down: bool, width: usize) -> Vec<Cell> {
    let mut out = Vec::new();
    for k in 0..4 {
        let Some(row) = (if down { Some(y + k) } else { y.checked_sub(k) }) else {
            break;
        };
        out.push((x + 2, row));
        if let Some(left) = x.checked_sub(width + 1) {
            out.push((left, row));
        }
    }
    out
}

/// Puts each edge label and each cut edge's two tags beside its own line, off
/// boxes, heads and other labels (and off every line where there is room), and each
/// self-relationship's `↺` beside its box.
fn place_labels(
    d: &mut DiagramLayout,
    self_relations: &[(usize, usize)],
    diagram: &ClassDiagram,
    budget: &Budget,
) -> Result<(), Refusal> {
    let longest = d
        .edges
        .iter()
        .flat_map(|e| e.label.iter().chain(e.tags()))
        .map(|l| l.text.width())
        .max()
        .unwrap_or(0)
        .max(MAX_TEXT);
    let grid_width = d.width + longest + 4;
    let grid_height = d.height + 2;
    let mut grid = Occupancy::new(grid_width, grid_height);
    for b in &d.boxes {
        grid.mark(&b.rect, TAKEN);
    }
    for e in &d.edges {
        for r in e.lines().flat_map(legs) {
            grid.mark(&r, LINE);
        }
        for (_, (x, y), _) in e.heads() {
            // With a blank cell either side, so a label never reads as the head's.
            grid.mark(
                &Rect {
                    x: x.saturating_sub(1),
                    y,
                    width: 3,
                    height: 1,
                },
                TAKEN,
            );
        }
    }
    let drawing_width = d.width;
    let place = |grid: &mut Occupancy, label: &mut Label, found: Vec<Cell>, legs: &[Rect]| {
        let width = label.text.width().max(1);
        let at = |(x, y): Cell| Rect {
            x,
            y,
            width,
            height: 1,
        };
        // Best with a blank cell either side, so no other line reads as its own.
        let padded = |c: Cell| {
            let r = at(c);
            Rect {
                x: r.x.saturating_sub(1),
                width: r.width + 2,
                ..r
            }
        };
        let spot = found
            .iter()
            .find(|&&c| grid.free(&padded(c), LINE) && grid.free(&at(c), TAKEN))
            .or_else(|| found.iter().find(|&&c| grid.free(&at(c), TAKEN)))
            .copied()
            .unwrap_or_else(|| {
                // Right of the whole drawing, on the line's first row.
                let y = legs.first().map_or(0, |r| r.y);
                let x = (drawing_width + 1..)
                    .find(|&x| grid.free(&at((x, y)), TAKEN))
                    .unwrap_or(drawing_width + 1);
                (x, y)
            });
        (label.x, label.y) = spot;
        // A blank cell either side, so two labels never read as one.
        let r = label.rect();
        grid.mark(
            &Rect {
                x: r.x.saturating_sub(1),
                width: r.width + 2,
                ..r
            },
            TAKEN,
        );
    };
    for e in &mut d.edges {
        budget.check()?;
        match &mut e.path {
            Path::Line(points) => {
                let legs = legs(points);
                if let Some(label) = &mut e.label {
                    let found = spots(&legs, label.text.width().max(1));
                    place(&mut grid, label, found, &legs);
                }
            }
            Path::Cut { start, end, tags } => {
                // The stubs run out of the box: start[1] and end[0] are the outer
                // cells; a stub under its box has its outer cell below the border.
                for (tag, stub, outer) in [(0, &*start, 1), (1, &*end, 0)] {
                    let Some(&cell) = stub.get(outer) else {
                        continue;
                    };
                    let border = stub[1 - outer];
                    let found = tag_spots(cell, cell.1 > border.1, tags[tag].text.width());
                    place(&mut grid, &mut tags[tag], found, &legs(stub));
                }
            }
        }
    }
    for &(relation, class) in self_relations {
        let Some(b) = d.boxes.get(class) else {
            continue;
        };
        let mut text = String::from("↺");
        if let Some(l) = &diagram.relations[relation].label {
            text.push(' ');
            text.push_str(&fit(l));
        }
        let rect = b.rect;
        let width = text.width();
        // Beside the box, on one of its rows; else under it.
        let beside = (rect.y..rect.bottom()).map(|y| (rect.right(), y));
        let under = (rect.bottom()..rect.bottom() + 4).map(|y| (rect.x, y));
        let cell = |(x, y): Cell| Rect {
            x,
            y,
            width,
            height: 1,
        };
        let at = beside
            .clone()
            .chain(under.clone())
            .find(|&c| grid.free(&cell(c), TAKEN | LINE))
            .or_else(|| beside.chain(under).find(|&c| grid.free(&cell(c), TAKEN)));
        let (x, y) = at.unwrap_or((rect.right(), rect.y));
        let mark = Label { text, x, y };
        grid.mark(&mark.rect(), TAKEN);
        d.loops.push(SelfLoop {
            relation,
            class,
            mark,
        });
    }
    Ok(())
}

/// The cells of each leg of a polyline, as one-cell-wide rectangles.
fn legs(points: &[Cell]) -> Vec<Rect> {
    points
        .windows(2)
        .map(|leg| {
            let (a, b) = (leg[0], leg[1]);
            Rect {
                x: a.0.min(b.0),
                y: a.1.min(b.1),
                width: a.0.abs_diff(b.0) + 1,
                height: a.1.abs_diff(b.1) + 1,
            }
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::design::model::mermaid::parse;
    use proptest::prelude::*;

    fn class_y(d: &DiagramLayout, diagram: &ClassDiagram, name: &str) -> usize {
        let i = diagram.classes.iter().position(|c| c.name == name).unwrap();
        d.boxes[i].rect.y
    }

    /// Everything the drawing promises, for any diagram: boxes apart, every
    /// relationship between two classes routed from one box's border to the
    /// other's in horizontal and vertical legs through no box, heads outside the
    /// boxes, labels on no box.
    fn check(diagram: &ClassDiagram, d: &DiagramLayout) -> Result<(), String> {
        for (i, a) in d.boxes.iter().enumerate() {
            for b in &d.boxes[i + 1..] {
                if a.rect.overlaps(&b.rect) {
                    return Err(format!("{} and {} overlap", a.name, b.name));
                }
            }
        }
        let routed = diagram
            .relations
            .iter()
            .filter(|r| r.left != r.right)
            .count();
        if d.edges.len() != routed {
            return Err(format!(
                "{} of {routed} relationships routed",
                d.edges.len()
            ));
        }
        for e in &d.edges {
            let rel = &diagram.relations[e.relation];
            let Some((first, last)) = e.ends() else {
                return Err(format!("{rel:?}: no cells"));
            };
            let (s, t) = (&d.boxes[e.start.class], &d.boxes[e.end.class]);
            if !s.rect.on_border(first) || !t.rect.on_border(last) {
                return Err(format!("{rel:?}: ends {first:?} {last:?} off {s:?} {t:?}"));
            }
            let names = [s.name.as_str(), t.name.as_str()];
            if !names.contains(&rel.left.as_str()) || !names.contains(&rel.right.as_str()) {
                return Err(format!("{rel:?} routed between {names:?}"));
            }
            for line in e.lines() {
                for leg in line.windows(2) {
                    if leg[0].0 != leg[1].0 && leg[0].1 != leg[1].1 {
                        return Err(format!("{rel:?}: diagonal leg {leg:?}"));
                    }
                }
            }
            for r in e.lines().flat_map(legs) {
                for b in &d.boxes {
                    let inner = Rect {
                        x: b.rect.x + 1,
                        y: b.rect.y + 1,
                        width: b.rect.width - 2,
                        height: b.rect.height - 2,
                    };
                    if r.overlaps(&inner) {
                        return Err(format!("{rel:?}: leg {r:?} runs through {}", b.name));
                    }
                }
            }
            for (_, cell, _) in e.heads() {
                if d.boxes.iter().any(|b| b.rect.contains(cell)) {
                    return Err(format!("{rel:?}: head at {cell:?} inside a box"));
                }
            }
            for l in e.label.iter().chain(e.tags()) {
                if let Some(b) = d.boxes.iter().find(|b| b.rect.overlaps(&l.rect())) {
                    return Err(format!("label {l:?} on {}", b.name));
                }
            }
            if let Path::Cut { tags, .. } = &e.path {
                let mark = |l: &Label| l.text.split(' ').next().map(str::to_string);
                if mark(&tags[0]) != mark(&tags[1]) || !tags[0].text.starts_with('#') {
                    return Err(format!("{rel:?}: tags {tags:?} do not match"));
                }
            }
        }
        // Every cell run of a line belongs to one edge: along a row (or a column)
        // no two edges meet in a cell, so a line can be followed, and a dashed
        // line never runs over a solid one. Edges may only cross, one across the
        // other, away from either's turns and ends.
        let mut along: HashMap<(Cell, bool), usize> = HashMap::new();
        for (i, e) in d.edges.iter().enumerate() {
            for r in e.lines().flat_map(legs) {
                let across = r.height == 1 && r.width > 1;
                for y in r.y..r.bottom() {
                    for x in r.x..r.right() {
                        if let Some(&j) = along.get(&((x, y), across))
                            && j != i
                        {
                            let other = &d.edges[j];
                            let what = if other.stroke == e.stroke {
                                "share"
                            } else {
                                "dashed over solid at"
                            };
                            return Err(format!(
                                "{:?} and {:?} {what} cell ({x}, {y})",
                                diagram.relations[e.relation], diagram.relations[other.relation]
                            ));
                        }
                        along.insert(((x, y), across), i);
                    }
                }
            }
        }
        let mut turns: HashMap<Cell, usize> = HashMap::new();
        for (i, e) in d.edges.iter().enumerate() {
            for line in e.lines() {
                for &p in line {
                    turns.insert(p, i);
                }
            }
            for (_, cell, _) in e.heads() {
                turns.insert(cell, i);
            }
        }
        for (i, e) in d.edges.iter().enumerate() {
            for r in e.lines().flat_map(legs) {
                for y in r.y..r.bottom() {
                    for x in r.x..r.right() {
                        if let Some(&j) = turns.get(&(x, y))
                            && j != i
                        {
                            return Err(format!(
                                "{:?} runs through a turn, end or head of {:?} at ({x}, {y})",
                                diagram.relations[e.relation],
                                diagram.relations[d.edges[j].relation]
                            ));
                        }
                    }
                }
            }
        }
        for e in &d.edges {
            for &(x, y) in e.lines().flatten() {
                if x >= d.width || y >= d.height {
                    return Err(format!("({x}, {y}) outside {}x{}", d.width, d.height));
                }
            }
        }
        Ok(())
    }

    #[test]
    fn parents_wholes_and_sources_are_drawn_above() {
        let text = "classDiagram\n  Animal <|-- Dog\n  Dog <|-- Puppy\n  Car *-- Wheel\n  Engine --* Car\n  Cli --> Store\n  Cache <-- Api\n";
        let diagram = parse(text);
        let d = layout(&diagram);
        check(&diagram, &d).unwrap();
        let y = |n| class_y(&d, &diagram, n);
        assert!(y("Animal") < y("Dog") && y("Dog") < y("Puppy"));
        assert!(y("Car") < y("Wheel") && y("Car") < y("Engine"));
        assert!(y("Cli") < y("Store") && y("Api") < y("Cache"));
    }

    #[test]
    fn heads_sit_at_the_marked_end() {
        let text = "classDiagram\n  A <|-- B\n  C *-- D\n  E o-- F\n  G --> H\n  I ..> J\n  K <|.. L\n  M -- N\n  O .. P\n";
        let diagram = parse(text);
        let d = layout(&diagram);
        check(&diagram, &d).unwrap();
        let marked = |e: &EdgeRoute| {
            [e.start, e.end]
                .into_iter()
                .filter_map(|end| end.head.map(|h| (d.boxes[end.class].name.clone(), h)))
                .collect::<Vec<_>>()
        };
        let found: Vec<_> = d.edges.iter().map(|e| (marked(e), e.stroke)).collect();
        use HeadShape::*;
        use Stroke::*;
        let want = [
            (vec![("A".to_string(), Triangle)], Solid),
            (vec![("C".to_string(), FilledDiamond)], Solid),
            (vec![("E".to_string(), HollowDiamond)], Solid),
            (vec![("H".to_string(), Arrow)], Solid),
            (vec![("J".to_string(), Arrow)], Dashed),
            (vec![("K".to_string(), Triangle)], Dashed),
            (vec![], Solid),
            (vec![], Dashed),
        ];
        assert_eq!(found, want);
    }

    #[test]
    fn a_cycle_is_drawn_with_every_edge() {
        let diagram =
            parse("classDiagram\n  A --> B\n  B --> C\n  C --> A : back\n  A --> A : again\n");
        let d = layout(&diagram);
        check(&diagram, &d).unwrap();
        assert_eq!(d.edges.len(), 3);
        assert_eq!(d.loops.len(), 1);
        assert_eq!(d.loops[0].mark.text, "↺ again");
        assert_eq!(d.edges[2].label.as_ref().unwrap().text, "back");
    }

    #[test]
    fn empty_and_broken_diagrams_draw_what_they_have() {
        assert_eq!(layout(&parse("")), DiagramLayout::default());
        let diagram = parse("classDiagram\n  A <|-- B\n  class C {\n    +x\n");
        assert!(diagram.error.is_some());
        let d = layout(&diagram);
        check(&diagram, &d).unwrap();
        assert_eq!(d.boxes.len(), 3);
    }

    #[test]
    fn generic_members_are_shown_with_angle_brackets() {
        let diagram = parse(
            "classDiagram\n  class Shelf {\n    +List~Book~ books\n    +find(Map~K,V~ m) a~b\n  }\n",
        );
        let d = layout(&diagram);
        assert_eq!(d.boxes[0].attributes, ["+List<Book> books"]);
        assert_eq!(d.boxes[0].methods, ["+find(Map<K,V> m) a~b"]);
    }

    #[test]
    fn long_text_is_cut() {
        let long = "x".repeat(200);
        let diagram = parse(&format!(
            "classDiagram\n  class A {{\n    +{long}()\n  }}\n"
        ));
        let d = layout(&diagram);
        assert!(d.boxes[0].rect.width <= MAX_TEXT + 4);
        assert!(d.boxes[0].methods[0].ends_with('…'));
    }

    /// Random diagrams: classes with members, every kind of arrow, labels, self
    /// relationships, and now and then a line that does not parse.
    pub(crate) fn diagram_text() -> impl Strategy<Value = String> {
        let names = prop::sample::select(vec![
            "A",
            "B",
            "C",
            "Dd",
            "Eeee",
            "Fff",
            "G",
            "Hhhhhhhhhhh",
            "I",
            "J",
            "K",
            "Lx",
        ]);
        let arrows = prop::sample::select(vec![
            "<|--", "--|>", "<|..", "..|>", "*--", "--*", "o--", "--o", "-->", "<--", "..>", "<..",
            "--", "..", "<-->", "*--*",
        ]);
        let relation = (
            names.clone(),
            arrows,
            names.clone(),
            prop::option::of("[a-z ]{1,12}"),
        )
            .prop_map(|(a, arrow, b, label)| match label {
                Some(l) => format!("  {a} {arrow} {b} : {l}"),
                None => format!("  {a} {arrow} {b}"),
            });
        let class = (
            names,
            prop::collection::vec("[+#~-]?[a-z]{1,20}(\\(\\))?", 0..5),
        )
            .prop_map(|(n, members)| {
                format!(
                    "  class {n} {{\n{}\n  }}",
                    members
                        .iter()
                        .map(|m| format!("    {m}"))
                        .collect::<Vec<_>>()
                        .join("\n")
                )
            });
        let line = prop_oneof![
            6 => relation,
            2 => class,
            1 => "[ -~]{0,20}".prop_map(|junk| format!("  {junk}")),
        ];
        prop::collection::vec(line, 0..40)
            .prop_map(|lines| format!("classDiagram\n{}\n", lines.join("\n")))
    }

    #[test]
    fn two_edges_into_one_class_keep_their_own_ports_and_heads() {
        let diagram = parse(
            "classDiagram\n  Api --> Store : writes\n  Cli --> Store : reads\n  Job ..> Store\n",
        );
        let d = layout(&diagram);
        check(&diagram, &d).unwrap();
        let store = d.boxes.iter().position(|b| b.name == "Store").unwrap();
        let mut ports: Vec<Cell> = d
            .edges
            .iter()
            .filter(|e| e.end.class == store || e.start.class == store)
            .map(|e| {
                let (a, b) = e.ends().unwrap();
                if e.end.class == store { b } else { a }
            })
            .collect();
        ports.sort_unstable();
        ports.dedup();
        assert_eq!(ports.len(), 3, "{ports:?}");
        let heads: Vec<Cell> = d
            .edges
            .iter()
            .flat_map(|e| e.heads())
            .map(|h| h.1)
            .collect();
        assert_eq!(heads.len(), 3);
        assert!(
            heads
                .iter()
                .all(|h| heads.iter().filter(|o| *o == h).count() == 1)
        );
    }

    #[test]
    fn where_the_tracks_run_out_both_ends_are_tagged_alike() {
        let text = "classDiagram\n  A --> B : one\n  A --> C\n  A ..> D\n  B --> D\n  C <|-- D\n";
        let diagram = parse(text);
        let d = layout_within(&diagram, &Budget::unlimited().with_tracks(0)).unwrap();
        check(&diagram, &d).unwrap();
        let cut: Vec<&EdgeRoute> = d
            .edges
            .iter()
            .filter(|e| matches!(e.path, Path::Cut { .. }))
            .collect();
        assert!(!cut.is_empty());
        for e in cut {
            let tags: Vec<&str> = e.tags().map(|t| t.text.as_str()).collect();
            let (start, end) = (&d.boxes[e.start.class].name, &d.boxes[e.end.class].name);
            let n = tags[0].split(' ').next().unwrap();
            assert!(tags[0].starts_with(&format!("{n} {end}")), "{tags:?}");
            assert_eq!(tags[1], format!("{n} {start}"));
        }
        // With tracks to spare nothing is cut.
        let d = layout(&diagram);
        assert!(d.edges.iter().all(|e| matches!(e.path, Path::Line(_))));
    }

    /// `n` classes, each related to `per` others, labelled.
    fn dense(n: usize, per: usize) -> String {
        let mut t = String::from("classDiagram\n");
        for i in 0..n {
            for k in 1..=per {
                t.push_str(&format!("  C{i} --> C{} : link {i} {k}\n", (i + k) % n));
            }
        }
        t
    }

    #[test]
    fn diagram_bombs_are_refused_within_the_budget() {
        // 100 classes linked every way (9,900 labelled relationships), and 200
        // densely linked ones: refused on their size, at once.
        for (n, per) in [(100, 99), (200, 40)] {
            let text = dense(n, per);
            let started = std::time::Instant::now();
            let diagram = parse(&text);
            let refused = layout_within(&diagram, &Budget::standard()).unwrap_err();
            let took = started.elapsed();
            assert!(
                took < super::super::budget::TIME_BUDGET,
                "{n} classes: {took:?}"
            );
            assert_eq!(
                refused,
                Refusal::TooLarge {
                    classes: n,
                    relations: n * per,
                    limit: super::super::budget::MAX_SIZE,
                }
            );
            assert!(
                refused.to_string().contains("over the layout limit"),
                "{refused}"
            );
        }
        // Under the size limit, the clock: a budget of no time gives up, with why.
        let diagram = parse(&dense(60, 3));
        let started = std::time::Instant::now();
        let budget = Budget::new(usize::MAX, Some(std::time::Duration::ZERO));
        assert_eq!(
            layout_within(&diagram, &budget),
            Err(Refusal::TooSlow(std::time::Duration::ZERO))
        );
        assert!(started.elapsed() < super::super::budget::TIME_BUDGET);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn any_diagram_is_drawn_apart_and_connected(text in diagram_text(), tracks in prop_oneof![3 => Just(40usize), 1 => 0usize..4]) {
            let diagram = parse(&text);
            let d = layout_within(&diagram, &Budget::unlimited().with_tracks(tracks)).unwrap();
            if let Err(e) = check(&diagram, &d) {
                return Err(TestCaseError::fail(format!("{e}\n{text}")));
            }
        }
    }
}
