//! A CSV trace's rows: a header line naming the columns, then one
//! transaction per record, read through a buffered reader one record at a
//! time into a reused record (no allocation per row).

use super::{Cell, Decode, Rows, TraceRow};
use std::fs::File;
use std::io::BufReader;

pub(crate) struct CsvRows {
    reader: csv::Reader<BufReader<File>>,
    names: Vec<String>,
    record: csv::ByteRecord,
}

impl CsvRows {
    pub fn open(path: &str) -> Result<CsvRows, String> {
        let file = File::open(path).map_err(|e| format!("{path}: cannot read trace: {e}"))?;
        let mut reader = csv::ReaderBuilder::new().has_headers(true).trim(csv::Trim::All).comment(Some(b'#')).from_reader(BufReader::with_capacity(1 << 16, file));
        let names = reader
            .byte_headers()
            .map_err(|e| format!("{path}: cannot read the header line: {e}"))?
            .iter()
            .map(|h| String::from_utf8_lossy(h).trim().to_string())
            .collect::<Vec<_>>();
        if names.iter().all(|n| n.is_empty()) {
            return Err(format!("{path}: empty trace: expected a header line naming the columns (time_ns, src, dst, and transaction or bytes)"));
        }
        Ok(CsvRows { reader, names, record: csv::ByteRecord::new() })
    }
}

impl Rows for CsvRows {
    fn names(&self) -> &[String] {
        &self.names
    }

    fn next_row(&mut self, f: &mut Decode<'_>) -> Result<Option<TraceRow>, String> {
        match self.reader.read_byte_record(&mut self.record) {
            Ok(false) => return Ok(None),
            Ok(true) => {}
            Err(e) => {
                return Err(match e.kind() {
                    csv::ErrorKind::UnequalLengths { pos, expected_len, len } => {
                        let line = pos.as_ref().map_or(0, |p| p.line());
                        format!("line {line}: {len} fields, the header has {expected_len}")
                    }
                    _ => format!("cannot read the trace: {e}"),
                })
            }
        }
        let line = self.record.position().map_or(0, |p| p.line());
        let mut cells: [Cell; 8] = [Cell::Null; 8];
        for (k, field) in self.record.iter().enumerate().take(8) {
            cells[k] = match std::str::from_utf8(field) {
                Ok(t) => Cell::Text(t),
                Err(_) => return Err(format!("line {line}: field {} is not UTF-8 text", k + 1)),
            };
        }
        f(&cells[..self.names.len().min(8)], line).map(Some)
    }
}
