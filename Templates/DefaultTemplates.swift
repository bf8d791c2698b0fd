// The bundled templates, as a resource bundle of their own: this folder is both what a user copies
// and restyles (html/, markdown/, assets/) and what the tool ships. SwiftPM needs one source file
// to make a target of it; this is that file. It is not needed in a copy.
import Foundation

public enum DefaultTemplates {
    /// The folder holding html/, markdown/ and assets/ in the built tool.
    public static var directory: URL? { Bundle.module.resourceURL }
}
