use std::fmt;

/// A scenario problem, as one line that names the key or the problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub message: String,
}

impl ScenarioError {
    pub fn new(message: impl Into<String>) -> Self {
        ScenarioError { message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}
