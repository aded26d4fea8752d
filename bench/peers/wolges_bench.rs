// Timing driver for wolges' move generator (lives outside the Arbitre repo).
// stdin: one position a line, "CGP_BOARD RACK"; argv[1]: repeats; argv[2]: the KWG.
// stdout: "placements top us_all us_top" a line (median microseconds).
use std::io::BufRead;
use wolges::{alphabet, display, game_config, klv, kwg, movegen};

fn median(v: &mut Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let repeat: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(5);
    let path = args.get(2).cloned().unwrap_or_else(|| "FRA_ARB.kwg".into());
    let kwg = kwg::Kwg::<kwg::Node22>::from_bytes_alloc(&std::fs::read(path).unwrap());
    let klv = klv::Klv::<kwg::Node22>::from_bytes_alloc(klv::EMPTY_KLV_BYTES);
    let game_config = game_config::make_french_game_config();
    let alphabet = game_config.alphabet();
    let mut fen_parser = display::BoardFenParser::new(alphabet, game_config.board_layout());
    let mut mg = movegen::KurniaMoveGenerator::new(&game_config);
    let reader = alphabet::AlphabetReader::new_for_racks(alphabet);
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let mut it = line.split_whitespace();
        let (Some(fen), Some(rack_s)) = (it.next(), it.next()) else { continue };
        let board_tiles = fen_parser.parse(fen).unwrap().to_vec();
        let sb = rack_s.as_bytes();
        let mut rack = Vec::new();
        let mut ix = 0;
        while ix < sb.len() {
            let (tile, next) = reader.next_tile(sb, ix).unwrap();
            rack.push(tile);
            ix = next;
        }
        let snap = movegen::BoardSnapshot { board_tiles: &board_tiles, game_config: &game_config, kwg: &kwg, klv: &klv };
        let mut t_all = Vec::new();
        let mut count = 0;
        for _ in 0..repeat {
            let t0 = std::time::Instant::now();
            mg.gen_moves_raw_all_unsorted(&snap, &rack, 0, false);
            t_all.push(t0.elapsed().as_secs_f64() * 1e6);
            count = mg.plays.iter().filter(|p| matches!(p.play, movegen::Play::Place { .. })).count();
        }
        let mut t_top = Vec::new();
        let mut top = -1;
        for _ in 0..repeat {
            let t0 = std::time::Instant::now();
            mg.gen_moves_unfiltered(&movegen::GenMovesParams {
                board_snapshot: &snap, rack: &rack, max_gen: 1, num_exchanges_by_this_player: 0,
                always_include_pass: false, dynamic_leaves: None,
            });
            t_top.push(t0.elapsed().as_secs_f64() * 1e6);
            top = match mg.plays.first() { Some(p) => match p.play { movegen::Play::Place { score, .. } => score / 1000, _ => -1 }, None => -1 };
        }
        println!("{} {} {:.2} {:.2}", count, top, median(&mut t_all), median(&mut t_top));
    }
}
