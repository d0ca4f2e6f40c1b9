/// Process exit codes of the command-line tool (documented in docs/cli.md).
public enum ExitCode: Int32, Sendable {
    /// Success; for `token verify` / `cookie inspect`: the credential is valid.
    case success = 0
    /// The credential was checked and is not valid.
    case invalidCredential = 1
    /// Bad usage or configuration: nothing was checked.
    case usage = 2
    /// The check could not be made now (the tenant's keys could not be loaded): try again later.
    case unavailable = 3
    /// `push`: at least one push was not sent (Apple refused it, or no answer came).
    case pushNotSent = 4
}
