//! `omnictl completions SHELL` and `omnictl man`: generated from the same clap definitions
//! the parser uses, so they never drift from the real command line.

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::CtlError;
use crate::output;

/// `omnictl completions SHELL`: the shell's completion script.
pub fn completions(shell: clap_complete::Shell) -> Result<(), CtlError> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "omnictl", &mut script);
    output::print(&String::from_utf8_lossy(&script));
    Ok(())
}

/// `omnictl man`: the man page, in roff.
pub fn man() -> Result<(), CtlError> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(|e| CtlError::failure(format!("cannot render the man page: {e}")))?;
    output::print(&String::from_utf8_lossy(&page));
    Ok(())
}
