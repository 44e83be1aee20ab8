use std::fmt;

/// A scenario problem, as one line that names the key or the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub message: String,
}

impl ScenarioError {
    /// An error saying `message`, kept to one line: a line break or other
    /// control character in it (from a key, a file name or a TOML parser
    /// message quoting the text) is written as an escape.
    pub fn new(message: impl Into<String>) -> Self {
        ScenarioError { message: one_line(&message.into()) }
    }
}

/// `text` with every character that could end a line or hide itself
/// (controls, Unicode line and paragraph separators) escaped.
fn one_line(text: &str) -> String {
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !text.chars().any(breaks) {
        return text.to_string();
    }
    text.chars().map(|c| if breaks(c) { c.escape_default().to_string() } else { c.to_string() }).collect()
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_stay_on_one_line() {
        let e = super::ScenarioError::new("a\nb\u{2028}c\u{85}d\u{c}e: unknown key");
        assert_eq!(e.message, "a\\nb\\u{2028}c\\u{85}d\\u{c}e: unknown key");
        assert_eq!(super::ScenarioError::new("network.nodes: ok").message, "network.nodes: ok");
    }
}
