//! A Parquet trace's rows, through the `parquet` crate's record reader
//! (no Arrow): row group by row group, a page of each column at a time,
//! never the whole file. Integer, floating-point and string columns are
//! read; compression: none or Snappy (pyarrow's default).

use super::{Cell, Decode, Rows, TraceRow};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::reader::RowIter;
use parquet::record::Field;
use std::fs::File;

pub(crate) struct ParquetRows {
    rows: RowIter<'static>,
    names: Vec<String>,
}

impl ParquetRows {
    pub fn open(path: &str) -> Result<ParquetRows, String> {
        let file = File::open(path).map_err(|e| format!("{path}: cannot read trace: {e}"))?;
        let reader = SerializedFileReader::new(file).map_err(|e| format!("{path}: not a Parquet file the trace reader can read: {e}"))?;
        let names = reader.metadata().file_metadata().schema_descr().root_schema().get_fields().iter().map(|f| f.name().to_string()).collect();
        Ok(ParquetRows { rows: reader.into_iter(), names })
    }
}

fn cell(f: &Field) -> Result<Cell<'_>, String> {
    Ok(match f {
        Field::Null => Cell::Null,
        Field::Byte(i) => Cell::Int(*i as i64),
        Field::Short(i) => Cell::Int(*i as i64),
        Field::Int(i) => Cell::Int(*i as i64),
        Field::Long(i) => Cell::Int(*i),
        Field::UByte(i) => Cell::Int(*i as i64),
        Field::UShort(i) => Cell::Int(*i as i64),
        Field::UInt(i) => Cell::Int(*i as i64),
        Field::ULong(i) => Cell::Int(i64::try_from(*i).unwrap_or(i64::MAX)),
        Field::Float(x) => Cell::Float(*x as f64),
        Field::Double(x) => Cell::Float(*x),
        Field::Str(s) => Cell::Text(s),
        other => return Err(format!("a value of a type a trace does not hold: {other}")),
    })
}

impl Rows for ParquetRows {
    fn names(&self) -> &[String] {
        &self.names
    }

    fn next_row(&mut self, f: &mut Decode<'_>) -> Result<Option<TraceRow>, String> {
        let row = match self.rows.next() {
            None => return Ok(None),
            Some(Err(e)) => return Err(format!("cannot read the trace: {e}")),
            Some(Ok(row)) => row,
        };
        let mut cells: [Cell; 8] = [Cell::Null; 8];
        for (k, (name, field)) in row.get_column_iter().enumerate().take(8) {
            cells[k] = cell(field).map_err(|e| format!("column {name}: {e}"))?;
        }
        f(&cells[..self.names.len().min(8)], 0).map(Some)
    }
}
