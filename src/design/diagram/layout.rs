//! Where the class diagram's boxes and arrows go on a character grid.
//!
//! The layered (Sugiyama) layout itself, layering, crossing reduction, coordinate
//! assignment and orthogonal edge routing, comes from `ascii-dag`, which places
//! boxes of a declared size and routes edges between them in terminal cells. This
//! module decides what goes into it and reads its answer back as owned geometry:
//!
//! - which way each relationship points in the layers (parent, whole and source on
//!   top, as UML and Mermaid draw them), with cycles broken here so that every edge
//!   can ask for its own port on each box, and so its own arrowhead;
//! - the size and text of each class box (annotations, name, attributes, methods);
//! - every route as an axis-aligned polyline from a cell on one box's border to a
//!   cell on the other's, the heads at its ends, its stroke, its label placed where
//!   it covers no box, head or other label.

use std::collections::HashMap;

use ascii_dag::ir::{EdgePath, FlowAxis, LayoutEdge};
use ascii_dag::{CustomNode, Graph, PortBound, PortPolicy, PortSide};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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

/// One relationship between two different classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRoute {
    /// Index of the relationship in the diagram.
    pub relation: usize,
    pub kind: RelationKind,
    pub stroke: Stroke,
    /// Axis-aligned polyline: the first cell is on `start`'s box border, the last on
    /// `end`'s, each pair of neighbours shares a row or a column.
    pub points: Vec<Cell>,
    pub start: EdgeEnd,
    pub end: EdgeEnd,
    pub label: Option<Label>,
}

impl EdgeRoute {
    /// The heads to draw: shape, the cell just outside the box, the way it points.
    pub fn heads(&self) -> impl Iterator<Item = (HeadShape, Cell, Toward)> + '_ {
        let n = self.points.len();
        let start = self.start.head.zip(
            (n >= 2)
                .then(|| step(self.points[0], self.points[1]))
                .flatten(),
        );
        let end = self.end.head.zip(
            (n >= 2)
                .then(|| step(self.points[n - 1], self.points[n - 2]))
                .flatten(),
        );
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

/// The drawing of `diagram`: boxes that never overlap, and a route for every
/// relationship between two classes. Works on whatever the parser recognised, so a
/// diagram with a syntax fault still draws what it has.
pub fn layout(diagram: &ClassDiagram) -> DiagramLayout {
    let boxes: Vec<ClassBox> = diagram
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| ClassBox::new(i, c))
        .collect();
    if boxes.is_empty() {
        return DiagramLayout::default();
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
        // Declared sides give every end its own cell on the box, so two
        // relationships leaving one class keep their own heads.
        let _ = graph
            .add_edge(from, to, labels[i].as_deref())
            .from_port(PortSide::Downstream)
            .to_port(PortSide::Upstream);
    }
    let ir = graph.compute_layout();

    for node in ir.nodes() {
        if let Some(b) = boxes.get_mut(node.id) {
            b.rect.x = node.x;
            b.rect.y = node.y;
        }
    }
    let mut edges: Vec<EdgeRoute> = ir
        .edges()
        .iter()
        .filter_map(|e| {
            let o = oriented.get(e.edge_index)?;
            let label = labels[e.edge_index].clone();
            read_route(e, o, &boxes, diagram.relations[o.relation].kind, label)
        })
        .collect();
    edges.sort_by_key(|e| e.relation);

    let mut drawing = DiagramLayout {
        width: 0,
        height: 0,
        boxes,
        edges,
        loops: Vec::new(),
    };
    drawing.open_gaps();
    place_labels(&mut drawing, &self_relations, diagram);
    drawing.fit_grid();
    drawing
}

/// One route of ascii-dag's answer as an [`EdgeRoute`] between the boxes.
fn read_route(
    e: &LayoutEdge<'_>,
    o: &Oriented,
    boxes: &[ClassBox],
    kind: RelationKind,
    label: Option<String>,
) -> Option<EdgeRoute> {
    let mut points = route(e);
    let (&first, &last) = (points.first()?, points.last()?);
    // The graph has no cycle, so ascii-dag reverses no edge: the route runs from the
    // edge's source to its target. It starts at the bottom of the source's level,
    // below a box shorter than its neighbours: run the line up to the box.
    let (source, target) = (boxes.get(e.from_id)?, boxes.get(e.to_id)?);
    if !source.rect.on_border(first) {
        points.insert(0, touch(&source.rect, first));
    }
    if !target.rect.on_border(last) {
        points.push(touch(&target.rect, last));
    }
    let upper = EdgeEnd {
        class: o.upper,
        head: o.upper_head,
    };
    let lower = EdgeEnd {
        class: o.lower,
        head: o.lower_head,
    };
    let (start, end) = if e.from_id == o.upper {
        (upper, lower)
    } else {
        (lower, upper)
    };
    Some(EdgeRoute {
        relation: o.relation,
        kind,
        stroke: stroke(kind),
        points: straighten(points),
        start,
        end,
        label: label.map(|text| Label {
            text,
            // ascii-dag leaves a column for an opening quote; the label has none.
            x: e.label_x + 1,
            y: e.label_y,
        }),
    })
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
            for &(x, y) in &e.points {
                take(Rect {
                    x,
                    y,
                    width: 1,
                    height: 1,
                });
            }
            if let Some(l) = &e.label {
                take(l.rect());
            }
        }
        for l in &self.loops {
            take(l.mark.rect());
        }
        self.width = width;
        self.height = height;
    }

    /// Adds a blank row at the top and at the bottom of every gap between two
    /// layers. ascii-dag may turn a line on the first row under a box or the last
    /// row over one, which is where heads go; after this no line turns there, so a
    /// head sits on its own line's straight end and no other line crosses it.
    fn open_gaps(&mut self) {
        let mut bands: Vec<(usize, usize)> = self
            .boxes
            .iter()
            .map(|b| (b.rect.y, b.rect.bottom()))
            .collect();
        bands.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(bands.len());
        for (start, end) in bands {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        let last = merged.len().saturating_sub(1);
        let row = |y: usize| {
            // The last band starting at or above `y`.
            let i = merged.partition_point(|b| b.0 <= y);
            let Some(i) = i.checked_sub(1) else {
                return y;
            };
            let in_band = y < merged[i].1;
            y + 2 * i + usize::from(!in_band && i < last)
        };
        for b in &mut self.boxes {
            b.rect.y = row(b.rect.y);
        }
        for e in &mut self.edges {
            for p in &mut e.points {
                p.1 = row(p.1);
            }
            if let Some(l) = &mut e.label {
                l.y = row(l.y);
            }
        }
    }

    /// The box of class `class`.
    pub fn class_box(&self, class: usize) -> Option<&ClassBox> {
        self.boxes.get(class)
    }
}

/// Moves each edge label off boxes, heads and the labels placed before it (trying
/// the rows around the place ascii-dag chose), and puts each self-relationship's
/// `↺` beside its box.
fn place_labels(d: &mut DiagramLayout, self_relations: &[(usize, usize)], diagram: &ClassDiagram) {
    let mut taken: Vec<Rect> = d.boxes.iter().map(|b| b.rect).collect();
    for e in &d.edges {
        for (_, (x, y), _) in e.heads() {
            // With a blank cell either side, so a label never reads as the head's.
            taken.push(Rect {
                x: x.saturating_sub(1),
                y,
                width: 3,
                height: 1,
            });
        }
    }
    let free = |taken: &[Rect], r: &Rect| !taken.iter().any(|t| t.overlaps(r));
    let legs: Vec<Vec<Rect>> = d.edges.iter().map(|e| legs(&e.points)).collect();
    for (i, e) in d.edges.iter_mut().enumerate() {
        let Some(label) = &mut e.label else {
            continue;
        };
        let (x, y) = (label.x, label.y);
        let mut candidates = Vec::new();
        for k in 0..6 {
            candidates.push(Some((x, y + k)));
            candidates.push(y.checked_sub(k + 1).map(|up| (x, up)));
            candidates.push(Some((x + k + 1, y)));
            candidates.push(x.checked_sub(k + 1).map(|left| (left, y)));
        }
        let width = label.text.width().max(1);
        let at = |(x, y): Cell| Rect {
            x,
            y,
            width,
            height: 1,
        };
        // Best off every other line too; else off boxes, heads and labels only.
        let clear_of_lines = |r: &Rect| legs.iter().enumerate().all(|(j, l)| j == i || free(l, r));
        let spot = candidates
            .iter()
            .flatten()
            .find(|&&c| free(&taken, &at(c)) && clear_of_lines(&at(c)))
            .or_else(|| candidates.iter().flatten().find(|&&c| free(&taken, &at(c))));
        if let Some(&(x, y)) = spot {
            label.x = x;
            label.y = y;
        }
        // A blank cell either side, so two labels never read as one.
        let r = label.rect();
        taken.push(Rect {
            x: r.x.saturating_sub(1),
            width: r.width + 2,
            ..r
        });
    }
    taken.extend(legs.into_iter().flatten());
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
        let at = beside.chain(under).find(|&(x, y)| {
            free(
                &taken,
                &Rect {
                    x,
                    y,
                    width,
                    height: 1,
                },
            )
        });
        let (x, y) = at.unwrap_or((rect.right(), rect.y));
        let mark = Label { text, x, y };
        taken.push(mark.rect());
        d.loops.push(SelfLoop {
            relation,
            class,
            mark,
        });
    }
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

/// The route of one edge as an axis-aligned polyline from its source's border cell
/// to its target's, read from the path ascii-dag chose.
fn route(e: &LayoutEdge<'_>) -> Vec<Cell> {
    let across = matches!(e.flow_axis, FlowAxis::X);
    // (flow, cross) coordinates and back.
    let fc = |(x, y): Cell| if across { (x, y) } else { (y, x) };
    let xy = |flow: usize, cross: usize| if across { (flow, cross) } else { (cross, flow) };
    let from = (e.from_x, e.from_y);
    let to = (e.to_x, e.to_y);
    let (from_f, from_c) = fc(from);
    let (to_f, to_c) = fc(to);
    let mut points = vec![from];
    match &e.path {
        EdgePath::Corner { bend_at } => {
            points.push(xy(*bend_at, from_c));
            points.push(xy(*bend_at, to_c));
        }
        EdgePath::SideChannel {
            channel_at,
            span_start,
            span_end,
        } => {
            points.push(xy(*span_start, from_c));
            points.push(xy(*span_start, *channel_at));
            points.push(xy(*span_end, *channel_at));
            points.push(xy(*span_end, to_c));
        }
        EdgePath::MultiSegment {
            waypoints,
            start_offset,
        } => {
            // Each turn is one line past the previous point along the flow.
            let down = to_f >= from_f;
            let (mut pf, mut pc) = (from_f, from_c);
            let mut first = true;
            let last = waypoints.len();
            for (i, &next) in waypoints.iter().chain(std::iter::once(&to)).enumerate() {
                let (nf, nc) = fc(next);
                if pc != nc {
                    let by = 1 + if first { *start_offset } else { 0 };
                    let bend = if down {
                        pf.saturating_add(by)
                    } else {
                        pf.saturating_sub(by)
                    };
                    points.push(xy(bend, pc));
                    points.push(xy(bend, nc));
                }
                if i < last {
                    points.push(next);
                }
                (pf, pc) = (nf, nc);
                first = false;
            }
        }
        EdgePath::Orthogonal { bends } => points.extend(bends.iter().copied()),
        _ => {}
    }
    points.push(to);
    straighten(points)
}

/// The outline cell of `r` straight across from `cell` (nearest corner when there
/// is none).
fn touch(r: &Rect, (x, y): Cell) -> Cell {
    let cx = x.clamp(r.x, r.right() - 1);
    let cy = y.clamp(r.y, r.bottom() - 1);
    if cx == x && cy != y {
        (x, cy)
    } else if cy == y && cx != x {
        (cx, y)
    } else {
        (cx, cy)
    }
}

/// Drops repeated and collinear points and puts an elbow between two points that
/// share neither row nor column, so every leg is horizontal or vertical.
fn straighten(points: Vec<Cell>) -> Vec<Cell> {
    let mut legs: Vec<Cell> = Vec::with_capacity(points.len());
    for p in points {
        if let Some(&prev) = legs.last() {
            if prev == p {
                continue;
            }
            if prev.0 != p.0 && prev.1 != p.1 {
                let mid = prev.1.min(p.1) + prev.1.abs_diff(p.1) / 2;
                legs.push((prev.0, mid));
                legs.push((p.0, mid));
            }
        }
        legs.push(p);
    }
    legs.dedup();
    let mut out: Vec<Cell> = Vec::with_capacity(legs.len());
    for p in legs {
        if out.len() >= 2 {
            let a = out[out.len() - 2];
            let b = out[out.len() - 1];
            let collinear = (a.0 == b.0 && b.0 == p.0) || (a.1 == b.1 && b.1 == p.1);
            if collinear {
                out.pop();
            }
        }
        out.push(p);
    }
    out
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
            let (first, last) = (e.points[0], e.points[e.points.len() - 1]);
            let (s, t) = (&d.boxes[e.start.class], &d.boxes[e.end.class]);
            if !s.rect.on_border(first) || !t.rect.on_border(last) {
                return Err(format!("{rel:?}: ends {first:?} {last:?} off {s:?} {t:?}"));
            }
            let names = [s.name.as_str(), t.name.as_str()];
            if !names.contains(&rel.left.as_str()) || !names.contains(&rel.right.as_str()) {
                return Err(format!("{rel:?} routed between {names:?}"));
            }
            for leg in e.points.windows(2) {
                if leg[0].0 != leg[1].0 && leg[0].1 != leg[1].1 {
                    return Err(format!("{rel:?}: diagonal leg {leg:?}"));
                }
            }
            for r in legs(&e.points) {
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
            if let Some(l) = &e.label
                && let Some(b) = d.boxes.iter().find(|b| b.rect.overlaps(&l.rect()))
            {
                return Err(format!("label {l:?} on {}", b.name));
            }
        }
        for e in &d.edges {
            for &(x, y) in &e.points {
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

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn any_diagram_is_drawn_apart_and_connected(text in diagram_text()) {
            let diagram = parse(&text);
            let d = layout(&diagram);
            if let Err(e) = check(&diagram, &d) {
                return Err(TestCaseError::fail(format!("{e}\n{text}")));
            }
        }
    }
}
