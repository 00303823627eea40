/**
 * The numbers of rrweb's event format that the server reads in stored recordings (rrweb's
 * EventType, IncrementalSource, MouseInteractions and NodeType), defined once for the recorder's
 * timeline and the matcher's detectors.
 */
export const FULL_SNAPSHOT = 2
export const INCREMENTAL = 3
export const META = 4
export const CUSTOM = 5
export const SOURCE_MUTATION = 0
export const SOURCE_MOUSE = 2
export const SOURCE_SCROLL = 3
export const SOURCE_INPUT = 5
export const SOURCE_MEDIA = 7
export const MOUSE_CLICK = 2
export const NODE_ELEMENT = 2
export const NODE_TEXT = 3
