//! Every relationship on its own track: the edges between two layers of boxes are
//! routed through the gap between them, each with its own port on each box face,
//! its own column through every layer it passes and its own row (track) in every
//! gap it crosses. Two edges can cross but never run along the same cells, so each
//! line can be followed from one head to the other.
//!
//! A gap is a channel-routing problem: each edge enters at the top of the gap at
//! one column and leaves at the bottom at another. When one edge enters where
//! another leaves, the first must turn above the second, or their vertical runs
//! would share cells. Tracks are handed out in an order that honours those
//! constraints, several edges sharing a row only where their runs are apart. An
//! edge whose constraints go round in a circle, or that would need more than
//! [`Budget::tracks`] rows in a gap, is not drawn as a line: it is cut, and both its
//! ends carry the same tag.

use std::collections::HashSet;

use super::layout::{Cell, ClassBox, Rect};
use super::{Budget, Refusal};

/// One edge to route: from a box on an upper layer to a box on a lower one.
pub struct Net {
    pub from: usize,
    pub to: usize,
    /// Where ascii-dag would pass the edge through each layer strictly between the
    /// two (its dummy nodes' columns), top to bottom; empty when not known.
    pub lanes: Vec<Option<usize>>,
}

/// How an edge is drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Routed {
    /// One polyline from the upper box's border to the lower box's.
    Line(Vec<Cell>),
    /// No line: a stub on each box, to be tagged alike.
    Cut { upper: Vec<Cell>, lower: Vec<Cell> },
}

/// The rows of one layer.
#[derive(Debug, Clone, Copy)]
struct Band {
    top: usize,
    height: usize,
}

/// Puts the layers one under the other with room for every gap's tracks, moving
/// the boxes down (each keeps its place inside its layer), and routes every net.
/// `levels[b]` is box `b`'s layer.
pub fn route(
    boxes: &mut [ClassBox],
    levels: &[usize],
    nets: &[Net],
    budget: &Budget,
) -> Result<Vec<Routed>, Refusal> {
    let layers = levels.iter().copied().max().map_or(0, |l| l + 1);
    let mut bands = vec![
        Band {
            top: usize::MAX,
            height: 0,
        };
        layers
    ];
    let mut bottoms = vec![0usize; layers];
    for (b, &l) in boxes.iter().zip(levels) {
        bands[l].top = bands[l].top.min(b.rect.y);
        bottoms[l] = bottoms[l].max(b.rect.bottom());
    }
    for (band, bottom) in bands.iter_mut().zip(&bottoms) {
        if band.top == usize::MAX {
            band.top = *bottom;
        }
        band.height = bottom.saturating_sub(band.top);
    }
    let offsets: Vec<usize> = boxes
        .iter()
        .zip(levels)
        .map(|(b, &l)| b.rect.y - bands[l].top)
        .collect();

    let centre = |b: usize| boxes[b].rect.x + boxes[b].rect.width / 2;
    let routable = |n: &Net| n.from != n.to && levels[n.from] < levels[n.to];

    // Columns through the layers: outside every box of the layer with a blank
    // column either side, and apart from every other lane.
    let width = boxes.iter().map(|b| b.rect.right()).max().unwrap_or(0) + 2;
    let mut blocked: Vec<Vec<bool>> = vec![vec![false; width]; layers];
    for (b, &l) in boxes.iter().zip(levels) {
        let row = &mut blocked[l];
        let (lo, hi) = (b.rect.x.saturating_sub(1), (b.rect.right() + 1).min(width));
        if let Some(cells) = row.get_mut(lo..hi) {
            cells.fill(true);
        }
    }
    let mut lanes: Vec<Vec<usize>> = Vec::with_capacity(nets.len());
    for n in nets {
        budget.check()?;
        if !routable(n) {
            lanes.push(Vec::new());
            continue;
        }
        let (lf, lt) = (levels[n.from], levels[n.to]);
        let (xf, xt) = (centre(n.from), centre(n.to));
        let span = lt - lf;
        let mut mine = Vec::with_capacity(span.saturating_sub(1));
        for (k, layer) in (lf + 1..lt).enumerate() {
            let wanted = n.lanes.get(k).copied().flatten().unwrap_or_else(|| {
                let t = k + 1;
                if xt >= xf {
                    xf + (xt - xf) * t / span
                } else {
                    xf - (xf - xt) * t / span
                }
            });
            let x = free_column(&mut blocked[layer], wanted);
            mine.push(x);
        }
        lanes.push(mine);
    }

    // Ports: each edge its own cell on the face, in the order of where the edge
    // goes next so that edges leaving one box do not cross at once.
    let mut out_ports: Vec<Vec<(usize, usize)>> = vec![Vec::new(); boxes.len()];
    let mut in_ports: Vec<Vec<(usize, usize)>> = vec![Vec::new(); boxes.len()];
    for (i, n) in nets.iter().enumerate() {
        let next = lanes[i].first().copied().unwrap_or_else(|| centre(n.to));
        let prev = lanes[i].last().copied().unwrap_or_else(|| centre(n.from));
        out_ports[n.from].push((next, i));
        in_ports[n.to].push((prev, i));
    }
    let mut port_out = vec![0usize; nets.len()];
    let mut port_in = vec![0usize; nets.len()];
    for (b, (outs, ins)) in out_ports.iter_mut().zip(in_ports.iter_mut()).enumerate() {
        for (list, ports) in [(outs, &mut port_out), (ins, &mut port_in)] {
            list.sort_unstable();
            let r = boxes[b].rect;
            let inner = r.width.saturating_sub(2).max(1);
            let count = list.len();
            for (k, &(_, i)) in list.iter().enumerate() {
                ports[i] = r.x + 1 + inner * (2 * k + 1) / (2 * count);
            }
        }
    }

    // Tracks, gap by gap; an edge cut in one gap is cut in all, so go again until
    // no more are cut.
    let mut cut: HashSet<usize> = nets
        .iter()
        .enumerate()
        .filter(|(_, n)| !routable(n))
        .map(|(i, _)| i)
        .collect();
    let gaps = layers.saturating_sub(1);
    let tracks = loop {
        let mut tracks: Vec<Vec<(usize, usize)>> = vec![Vec::new(); gaps];
        let before = cut.len();
        for (g, slot) in tracks.iter_mut().enumerate() {
            let mut pins = Vec::new();
            for (i, n) in nets.iter().enumerate() {
                if cut.contains(&i) {
                    continue;
                }
                let (lf, lt) = (levels[n.from], levels[n.to]);
                if g < lf || g >= lt {
                    continue;
                }
                let top = if g == lf {
                    port_out[i]
                } else {
                    lanes[i][g - lf - 1]
                };
                let bottom = if g + 1 == lt {
                    port_in[i]
                } else {
                    lanes[i][g - lf]
                };
                pins.push(Pin {
                    net: i,
                    top,
                    bottom,
                });
            }
            let (assigned, dropped) = assign(&pins, budget)?;
            cut.extend(dropped);
            *slot = assigned;
        }
        if cut.len() == before {
            break tracks;
        }
    };

    // Stack the layers with each gap as tall as its tracks need.
    let rows: Vec<usize> = tracks
        .iter()
        .map(|t| t.iter().map(|&(_, row)| row + 1).max().unwrap_or(0).max(1))
        .collect();
    let mut top = 0;
    for (l, band) in bands.iter_mut().enumerate() {
        band.top = top;
        top += band.height + rows.get(l).map_or(0, |r| r + 2);
    }
    for ((b, &l), off) in boxes.iter_mut().zip(levels).zip(&offsets) {
        b.rect.y = bands[l].top + off;
    }
    let track_row = |g: usize, t: usize| bands[g].top + bands[g].height + 1 + t;

    let mut out = Vec::with_capacity(nets.len());
    for (i, n) in nets.iter().enumerate() {
        budget.check()?;
        let (s, t) = (boxes[n.from].rect, boxes[n.to].rect);
        if cut.contains(&i) {
            out.push(stubs(&s, &t, port_out[i], port_in[i]));
            continue;
        }
        let (lf, lt) = (levels[n.from], levels[n.to]);
        let mut points = vec![(port_out[i], s.bottom() - 1)];
        let mut x = port_out[i];
        for g in lf..lt {
            let next = if g + 1 == lt {
                port_in[i]
            } else {
                lanes[i][g - lf]
            };
            if next != x {
                let row = tracks[g]
                    .iter()
                    .find(|&&(net, _)| net == i)
                    .map_or(0, |&(_, row)| row);
                let y = track_row(g, row);
                points.push((x, y));
                points.push((next, y));
                x = next;
            }
        }
        points.push((port_in[i], t.y));
        out.push(Routed::Line(straight(points)));
    }
    Ok(out)
}

/// The stub of a cut edge on each of its boxes: one cell out of the face, where
/// the head goes (out of the bottom of the upper box, into the top of the lower;
/// into the bottom of a lower box on the top row, for an edge the layers could not
/// order).
fn stubs(s: &Rect, t: &Rect, out: usize, into: usize) -> Routed {
    let lower = match t.y.checked_sub(1) {
        Some(above) => vec![(into, above), (into, t.y)],
        None => vec![(into, t.bottom()), (into, t.bottom() - 1)],
    };
    Routed::Cut {
        upper: vec![(out, s.bottom() - 1), (out, s.bottom())],
        lower,
    }
}

/// The free column nearest `wanted`, then marks it and its neighbours taken.
fn free_column(row: &mut Vec<bool>, wanted: usize) -> usize {
    let free = |x: usize| !row.get(x).copied().unwrap_or(false);
    // Past the end of the row every column is free, so the search ends.
    let x = (0..)
        .find_map(|d: usize| {
            if free(wanted + d) {
                Some(wanted + d)
            } else {
                wanted.checked_sub(d).filter(|&left| free(left))
            }
        })
        .unwrap_or(wanted);
    if row.len() < x + 2 {
        row.resize(x + 2, false);
    }
    // A lane beside another would read as one line.
    row[x] = true;
    row[x + 1] = true;
    if let Some(left) = x.checked_sub(1) {
        row[left] = true;
    }
    x
}

/// (edge, track) for each edge given a track in a gap, and the edges cut there.
type Assigned = (Vec<(usize, usize)>, Vec<usize>);

/// One edge in one gap: the column it comes in at the top and leaves at the bottom.
#[derive(Debug, Clone, Copy)]
struct Pin {
    net: usize,
    top: usize,
    bottom: usize,
}

/// Tracks for the edges of one gap: (edge, track) for each edge that turns in the
/// gap, and the edges to cut. An edge entering at the column where another leaves
/// turns above it; edges share a row only with a blank cell between their runs.
fn assign(pins: &[Pin], budget: &Budget) -> Result<Assigned, Refusal> {
    let turning: Vec<Pin> = pins.iter().copied().filter(|p| p.top != p.bottom).collect();
    let n = turning.len();
    // below[a]: the edges that must turn below edge a.
    let mut below: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut waiting = vec![0usize; n];
    let by_bottom: std::collections::HashMap<usize, usize> = turning
        .iter()
        .enumerate()
        .map(|(i, p)| (p.bottom, i))
        .collect();
    for (a, p) in turning.iter().enumerate() {
        if let Some(&b) = by_bottom.get(&p.top)
            && b != a
        {
            below[a].push(b);
            waiting[b] += 1;
        }
    }
    let span = |p: &Pin| (p.top.min(p.bottom), p.top.max(p.bottom));
    let mut cut = Vec::new();
    let mut done = vec![false; n];
    let mut floor = vec![0usize; n];
    let mut rows: Vec<Vec<(usize, usize)>> = Vec::new();
    let mut assigned = Vec::with_capacity(n);
    // Ready edges, taken leftmost first, so rows fill like a left-edge sweep.
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<(usize, usize)>> = (0..n)
        .filter(|&i| waiting[i] == 0)
        .map(|i| std::cmp::Reverse((span(&turning[i]).0, i)))
        .collect();
    for _ in 0..n {
        budget.check()?;
        let mut next = None;
        while let Some(std::cmp::Reverse((_, i))) = ready.pop() {
            if !done[i] {
                next = Some((i, true));
                break;
            }
        }
        let (i, placeable) = match next {
            Some(found) => found,
            // A circle of constraints: cut the edge waiting on the fewest.
            None => match (0..n).filter(|&i| !done[i]).min_by_key(|&i| waiting[i]) {
                Some(i) => (i, false),
                None => break,
            },
        };
        done[i] = true;
        let mut row = floor[i];
        if placeable {
            let (lo, hi) = span(&turning[i]);
            while rows.get(row).is_some_and(|r| {
                r.iter()
                    .any(|&(a, b)| lo <= b.saturating_add(1) && a <= hi.saturating_add(1))
            }) {
                row += 1;
            }
            if row < budget.tracks() {
                if rows.len() <= row {
                    rows.resize(row + 1, Vec::new());
                }
                rows[row].push((lo, hi));
                assigned.push((turning[i].net, row));
            } else {
                cut.push(turning[i].net);
            }
        } else {
            cut.push(turning[i].net);
        }
        for &b in &below[i] {
            if done[b] {
                continue;
            }
            floor[b] = floor[b].max(row + 1);
            waiting[b] = waiting[b].saturating_sub(1);
            if waiting[b] == 0 {
                ready.push(std::cmp::Reverse((span(&turning[b]).0, b)));
            }
        }
    }
    Ok((assigned, cut))
}

/// Drops repeated and collinear points.
fn straight(points: Vec<Cell>) -> Vec<Cell> {
    let mut out: Vec<Cell> = Vec::with_capacity(points.len());
    for p in points {
        if out.last() == Some(&p) {
            continue;
        }
        if out.len() >= 2 {
            let a = out[out.len() - 2];
            let b = out[out.len() - 1];
            if (a.0 == b.0 && b.0 == p.0) || (a.1 == b.1 && b.1 == p.1) {
                out.pop();
            }
        }
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pin(net: usize, top: usize, bottom: usize) -> Pin {
        Pin { net, top, bottom }
    }

    #[test]
    fn an_edge_entering_where_another_leaves_turns_above_it() {
        // 0 comes in at column 10, where 1 leaves: 0's run down must end above 1's.
        let (rows, cut) = assign(&[pin(1, 4, 10), pin(0, 10, 20)], &Budget::unlimited()).unwrap();
        assert!(cut.is_empty());
        let row = |n: usize| rows.iter().find(|r| r.0 == n).unwrap().1;
        assert!(row(0) < row(1), "{rows:?}");
    }

    #[test]
    fn runs_apart_share_a_row_and_runs_side_by_side_do_not() {
        let (rows, _) = assign(
            &[pin(0, 1, 5), pin(1, 8, 12), pin(2, 6, 9)],
            &Budget::unlimited(),
        )
        .unwrap();
        let row = |n: usize| rows.iter().find(|r| r.0 == n).unwrap().1;
        assert_eq!(row(0), row(1));
        assert_ne!(row(2), row(0));
        assert_ne!(row(2), row(1));
    }

    #[test]
    fn a_circle_of_constraints_or_too_many_rows_cuts_edges() {
        let (rows, cut) = assign(&[pin(0, 3, 9), pin(1, 9, 3)], &Budget::unlimited()).unwrap();
        assert_eq!((rows.len(), cut.len()), (1, 1));
        let many: Vec<Pin> = (0..50).map(|i| pin(i, i * 2, 200 + i * 2)).collect();
        let (rows, cut) = assign(&many, &Budget::unlimited().with_tracks(40)).unwrap();
        assert_eq!((rows.len(), cut.len()), (40, 10));
        // A straight run needs no row at all.
        let (rows, cut) = assign(&[pin(0, 7, 7)], &Budget::unlimited().with_tracks(0)).unwrap();
        assert!(rows.is_empty() && cut.is_empty());
    }
}
