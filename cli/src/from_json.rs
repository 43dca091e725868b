//! `kiln from-json`: JSON values on standard input to Kiln bytes on
//! standard output, strictly under a schema.

use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;

use kiln::value::Value;

use crate::files::plan_from;
use crate::{Failure, out};

pub(crate) fn run(schema: &Path, frame: bool) -> Result<ExitCode, Failure> {
    let plan = plan_from(schema)?;
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .map_err(|e| Failure::Io(e, "<stdin>".into()))?;
    let mut values: Vec<Value<'static>> = Vec::new();
    let mut stream = serde_json::Deserializer::from_slice(&input).into_iter::<serde_json::Value>();
    loop {
        let at = stream.byte_offset();
        let Some(next) = stream.next() else { break };
        let json = next.map_err(|e| Failure::Usage(format!("<stdin>: not JSON: {e}")))?;
        let v = kiln::value::from_deserializer(&json, &plan).map_err(|e| {
            let where_ = format!("<stdin>: JSON value {} (at byte {at})", values.len());
            Failure::Kiln(e, Some(where_.into()))
        })?;
        values.push(v);
    }
    let bytes = if frame {
        let options = kiln::frame::FrameOptions::new().embed_schema(true);
        kiln::value::frame_to_vec(&values, &plan, &options)?
    } else {
        if values.len() > 1 && values.iter().any(|v| !v.arrays().is_empty()) {
            return Err(Failure::Usage(
                "records with shaped arrays cannot go back to back (spec 7.3): give one \
                 value, or --frame with one value"
                    .into(),
            ));
        }
        let mut bytes = Vec::new();
        for v in &values {
            bytes.extend(kiln::value::to_vec(v, &plan)?);
        }
        bytes
    };
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    out(w.write_all(&bytes))?;
    out(w.flush())?;
    Ok(ExitCode::SUCCESS)
}
